package serve

import (
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// agentRequest is OpenSSH's request to forward the client's agent.
const agentRequest = "auth-agent-req@openssh.com"

// sessionWithoutAgent is the "session" channel handler with agent
// forwarding refused: charm.land/ssh accepts the request (and only notes
// it), so the request is answered "no" here, before the session sees it,
// and the client knows no agent is reachable through the server.
func sessionWithoutAgent(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
	ssh.DefaultSessionHandler(srv, conn, noAgentChannel{newChan}, ctx)
}

// noAgentChannel filters the requests of an accepted session channel.
type noAgentChannel struct{ gossh.NewChannel }

func (c noAgentChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := c.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		for r := range reqs {
			if r.Type == agentRequest {
				if r.WantReply {
					_ = r.Reply(false, nil)
				}
				continue
			}
			out <- r
		}
	}()
	return ch, out, nil
}
