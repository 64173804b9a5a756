package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// hostKeyName is the host key's file name in the user's config folder.
const hostKeyName = "ssh_host_ed25519_key"

// DefaultHostKeyPath is where the server keeps its host key when
// --host-key is not given: os.UserConfigDir()/dpscope/ssh_host_ed25519_key.
// It returns an error when the system has no user config folder.
func DefaultHostKeyPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user config folder for the host key (give --host-key): %w", err)
	}
	return filepath.Join(dir, "dpscope", hostKeyName), nil
}

// LoadOrCreateHostKey reads the OpenSSH private key at path, or, when no
// file is there, generates an ed25519 key and writes it with mode 0600 (its
// folder 0700), so that participants see the same host key at every start
// and their ssh can warn them if it ever changes. It returns created true
// when it wrote a new key. A key file that others may read is refused,
// as OpenSSH refuses one: whoever reads it can impersonate the server.
func LoadOrCreateHostKey(path string) (signer gossh.Signer, created bool, err error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		signer, err := createHostKey(path)
		return signer, err == nil, err
	case err != nil:
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	case !info.Mode().IsRegular():
		return nil, false, fmt.Errorf("host key %s is not a regular file", path)
	case info.Mode().Perm()&0o077 != 0:
		return nil, false, fmt.Errorf("host key %s has mode %04o: others may read it; run chmod 600 %s", path, info.Mode().Perm(), path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	}
	signer, err = gossh.ParsePrivateKey(raw)
	if err != nil {
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	}
	return signer, false, nil
}

// createHostKey generates an ed25519 key and writes it to path, creating
// the file exclusively so that two servers starting at once never
// overwrite each other's key.
func createHostKey(path string) (gossh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "dpscope serve host key")
	if err != nil {
		return nil, fmt.Errorf("encode host key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("host key folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("write host key: %w", err)
	}
	if _, err := f.Write(pem.EncodeToMemory(block)); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("write host key %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("write host key %s: %w", path, err)
	}
	return gossh.NewSignerFromKey(priv)
}
