package safe

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sync/errgroup"
)

func TestCallReturnsErrorOfF(t *testing.T) {
	want := errors.New("plain")
	if got := Call(func() error { return want }); got != want {
		t.Errorf("Call(f returning %v) = %v, want it unchanged", want, got)
	}
	if got := Call(func() error { return nil }); got != nil {
		t.Errorf("Call(f returning nil) = %v, want nil", got)
	}
}

func indexPanic(i int) error {
	s := make([]int, 15)
	return errors.New(string(rune(s[i])))
}

func TestCallRecoversRuntimePanic(t *testing.T) {
	err := Call(func() error { return indexPanic(15) })
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Call(index out of range) = %v, want a *PanicError", err)
	}
	var re runtime.Error
	if !errors.As(err, &re) {
		t.Errorf("PanicError does not unwrap to the runtime.Error: %v", err)
	}
	if !strings.Contains(err.Error(), "index out of range [15] with length 15") {
		t.Errorf("message = %q, want the panic value", err.Error())
	}
	if !strings.Contains(pe.Where, "safe.indexPanic") || !strings.Contains(pe.Where, "safe_test.go:") {
		t.Errorf("Where = %q, want the panicking function and line", pe.Where)
	}
	if len(pe.Stack) == 0 || !IsPanic(err) {
		t.Errorf("Stack empty or IsPanic false for %v", err)
	}
}

func TestFuncInErrgroupWorker(t *testing.T) {
	var g errgroup.Group
	for i := range 4 {
		g.Go(Func(func() error {
			if i == 2 {
				panic("worker 2 broke")
			}
			return nil
		}))
	}
	err := g.Wait()
	if !IsPanic(err) || !strings.Contains(err.Error(), "worker 2 broke") {
		t.Errorf("errgroup with a panicking worker: Wait() = %v, want the recovered panic", err)
	}
	if IsPanic(errors.New("x")) {
		t.Error("IsPanic(plain error) = true, want false")
	}
}
