package sounddcan

import "github.com/dpscope/dpscope/core"

func init() {
	core.Register(MethodName, func(cfg core.Config) (core.Engine, error) { return New(cfg) })
}
