package cli

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	_ "github.com/dpscope/dpscope/core/method/dppca" // the cheap method of the remote run
	"github.com/dpscope/dpscope/internal/serve"
)

// blankModel is an interface that shows nothing and quits on q.
type blankModel struct{}

func (blankModel) Init() tea.Cmd { return nil }
func (m blankModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "q" {
		return m, tea.Quit
	}
	return m, nil
}
func (blankModel) View() tea.View { return tea.NewView("blank") }

// signer returns a fresh ed25519 key.
func signer(t *testing.T) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// remoteServer is `dpscope serve` on a free loopback port with the remote
// commands of this package, one authorized key and a passphrase; data-dir
// holds data.csv and a link to a file outside it.
type remoteServer struct {
	srv     *serve.Server
	addr    string
	key     gossh.Signer
	dataDir string
	state   string
	outside string
}

const remotePassphrase = "workshop passphrase"

func startRemote(t *testing.T) *remoteServer {
	t.Helper()
	dir := t.TempDir()
	r := &remoteServer{key: signer(t), dataDir: filepath.Join(dir, "data"), state: filepath.Join(dir, "state"), outside: filepath.Join(dir, "outside")}
	for _, d := range []string{r.dataDir, r.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(r.outside, "secret.toml"), "method = \"dppca\"\n")
	write(filepath.Join(r.outside, "labels.tsv"), "a\tb\n")
	write(filepath.Join(dir, "ak"), string(gossh.MarshalAuthorizedKey(r.key.PublicKey())))
	write(filepath.Join(dir, "pass"), remotePassphrase+"\n")
	// A config file inside data-dir that points at data outside it.
	write(filepath.Join(r.dataDir, "escape.toml"), "method = \"dppca\"\ndata = \""+filepath.Join(r.outside, "secret.toml")+"\"\n")
	if err := os.Symlink(filepath.Join(r.outside, "secret.toml"), filepath.Join(r.dataDir, "link.toml")); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Config{
		HostKeyPath: filepath.Join(dir, "host_key"), AuthorizedKeys: filepath.Join(dir, "ak"), PassphraseFile: filepath.Join(dir, "pass"),
		DataDir: r.dataDir, StateDir: r.state, Workers: 1, MaxRuns: 1,
		FailDelay: time.Millisecond, MaxFailures: 3,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		UI:     serve.UI{NewModel: func(serve.Session) tea.Model { return blankModel{} }},
		Exec:   remoteExec,
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	r.srv, r.addr = srv, l.Addr().String()
	return r
}

func (r *remoteServer) dial(auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", r.addr, &gossh.ClientConfig{User: "p", Auth: auth, HostKeyCallback: gossh.FixedHostKey(r.srv.HostKey()), Timeout: 10 * time.Second})
}

// remote runs cmd in a new session and returns its output and exit status.
func remote(t *testing.T, c *gossh.Client, cmd string) (string, int) {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.CombinedOutput(cmd)
	var ee *gossh.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitStatus()
	default:
		t.Fatalf("%s: %v", cmd, err)
		return "", -1
	}
}

// TestServeRefusals checks every refusal of issue 20: a wrong key, a wrong
// passphrase (and the lock-out after repeated ones), a command that is not
// run or budget, port forwarding both ways, agent forwarding, a subsystem
// (sftp without --allow-scp), and every path
// flag that leads outside the data folder or the session's folder.
func TestServeRefusals(t *testing.T) {
	r := startRemote(t)

	if _, err := r.dial(gossh.PublicKeys(signer(t))); err == nil {
		t.Error("a key not in --authorized-keys got in")
	}
	c, err := r.dial(gossh.PublicKeys(r.key))
	if err != nil {
		t.Fatalf("the authorized key: %v", err)
	}
	defer c.Close()

	for _, cmd := range []string{"ls /", "sh -c id", "sweep --out /tmp/x", "data info", "version", "serve"} {
		out, code := remote(t, c, cmd)
		if code != 126 || !strings.Contains(out, "not served here") {
			t.Errorf("%q: status %d, output %q; want 126 and a refusal", cmd, code, out)
		}
	}
	if _, err := c.Dial("tcp", r.addr); err == nil {
		t.Error("local port forwarding (direct-tcpip) was allowed")
	}
	if l, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		l.Close()
		t.Error("remote port forwarding (tcpip-forward) was allowed")
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestSubsystem("sftp"); err == nil {
		t.Error("the sftp subsystem was served")
	}
	s.Close()
	s, err = c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.RequestAgentForwarding(s); err == nil {
		t.Error("agent forwarding was accepted")
	}
	s.Close()

	paths := map[string]string{
		"run --method dppca --data " + filepath.Join(r.outside, "secret.toml"):  "outside",
		"run --method dppca --data ../outside/secret.toml":                      "outside",
		"run --method dppca --labels " + filepath.Join(r.outside, "labels.tsv"): "outside",
		"run --config " + filepath.Join(r.outside, "secret.toml"):               "outside",
		"run --config link.toml":                       "outside", // a link out of data-dir
		"run --config escape.toml":                     "outside", // data named by a config inside
		"run --method dppca --out /tmp/dpscope-escape": "outside",
		"run --method dppca --out ../../outside/res":   "outside",
	}
	for cmd, want := range paths {
		out, code := remote(t, c, cmd)
		if code != ExitUsage || !strings.Contains(out, want) {
			t.Errorf("%q: status %d, output %q; want %d and %q", cmd, code, out, ExitUsage, want)
		}
	}
	if _, err := os.Stat("/tmp/dpscope-escape"); err == nil {
		t.Error("a run wrote outside its session's folder")
	}

	// Wrong passphrases: refused, and after MaxFailures (3) the address is
	// locked out, the right passphrase included.
	for i := range 3 {
		if _, err := r.dial(gossh.Password("wrong guess " + string(rune('a'+i)))); err == nil {
			t.Fatal("a wrong passphrase got in")
		}
	}
	if _, err := r.dial(gossh.Password(remotePassphrase)); err == nil {
		t.Error("the right passphrase got in from an address locked out after 3 failures")
	}
	// The key still gets in: keys cannot be guessed, the lock-out is for
	// passphrases.
	if c2, err := r.dial(gossh.PublicKeys(r.key)); err != nil {
		t.Errorf("the key after the passphrase lock-out: %v", err)
	} else {
		c2.Close()
	}
}

// TestServeRemoteCommands: budget and run work over SSH, and run's --out
// lands in the session's own folder.
func TestServeRemoteCommands(t *testing.T) {
	r := startRemote(t)
	c, err := r.dial(gossh.Password(remotePassphrase))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out, code := remote(t, c, "budget --q 0.01 --sigma 1 --steps 1000")
	if code != 0 || !strings.Contains(out, "ε = 2.10137") {
		t.Fatalf("budget: status %d, output %q; want 0 and ε = 2.10137 (RDP)", code, out)
	}
	out, code = remote(t, c, "run --method dppca --epsilon 4 --no-reference --out res")
	if code != 0 {
		t.Fatalf("run: status %d, output %q", code, out)
	}
	matches, _ := filepath.Glob(filepath.Join(r.state, "pass-*", "res", "summary.json"))
	if len(matches) != 1 {
		t.Errorf("summary.json of the run: %v, want one in the session's folder", matches)
	}
}

// TestServeFlags: `dpscope serve` refuses to start open to anyone, or with
// limits or a first data set it cannot honour, naming the flag.
func TestServeFlags(t *testing.T) {
	dir := t.TempDir()
	pass := filepath.Join(dir, "pass")
	if err := os.WriteFile(pass, []byte(remotePassphrase+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"serve", "--state-dir", filepath.Join(dir, "state"), "--host-key", filepath.Join(dir, "hk"), "--addr", "127.0.0.1:0"}
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{nil, ExitUsage, "does not open to anyone"},
		{[]string{"--passphrase-file", pass, "--max-runs", "0"}, ExitUsage, "--max-runs is 0"},
		{[]string{"--passphrase-file", pass, "--max-cells", "-1"}, ExitUsage, "--max-cells is -1"},
		{[]string{"--passphrase-file", pass, "--idle-timeout", "0s"}, ExitUsage, "--idle-timeout"},
		{[]string{"--passphrase-file", pass, "--keep", "-1m"}, ExitUsage, "--keep is -1m0s"},
		{[]string{"--passphrase-file", pass, "--data", "/etc/passwd"}, ExitUsage, "--data-dir, which is not given"},
		{[]string{"--passphrase-file", pass, "--data-dir", dir, "--data", "/etc/passwd"}, ExitUsage, "outside"},
		{[]string{"--passphrase-file", pass, "--log-format", "xml"}, ExitUsage, "--log-format"},
		{[]string{"--passphrase-file", filepath.Join(dir, "missing")}, ExitRuntime, "--passphrase-file"},
		{[]string{"--authorized-keys", pass}, ExitRuntime, "not an authorized key"},
		{[]string{"--passphrase-file", pass, "--instructor-keys", pass}, ExitRuntime, "--instructor-keys"},
	}
	for _, tc := range tests {
		var out, errOut strings.Builder
		env := Env{Stdout: &out, Stderr: &errOut, ServeUI: func(*Loaded) serve.UI {
			return serve.UI{NewModel: func(serve.Session) tea.Model { return blankModel{} }}
		}}
		code := Execute(context.Background(), append(append([]string{}, base...), tc.args...), env)
		stderr := errOut.String()
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("serve %v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
}
