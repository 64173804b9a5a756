package serve

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"os"
	"strings"

	gossh "golang.org/x/crypto/ssh"
)

// minPassphrase is the shortest workshop passphrase accepted: with the
// per-address cap on failures, eight characters keep guessing hopeless.
const minPassphrase = 8

// KeySet is a set of public keys read from an authorized_keys file.
type KeySet map[string]gossh.PublicKey

// Has reports whether key is in the set.
func (s KeySet) Has(key gossh.PublicKey) bool {
	_, ok := s[string(key.Marshal())]
	return ok
}

// ParseAuthorizedKeys reads OpenSSH authorized_keys text: one key a line,
// options and comments allowed, blank lines and # comments skipped. It
// returns an error naming file and the line of the first key it cannot
// read, and one when the text holds no key at all (a server that nobody
// can enter is a mistake, not a setting).
func ParseAuthorizedKeys(text []byte, file string) (KeySet, error) {
	keys := KeySet{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		key, _, _, _, err := gossh.ParseAuthorizedKey(l)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: not an authorized key: %w", file, line, err)
		}
		keys[string(key.Marshal())] = key
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s holds no public key", file)
	}
	return keys, nil
}

// LoadAuthorizedKeys reads and parses the authorized_keys file at path.
func LoadAuthorizedKeys(path string) (KeySet, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--authorized-keys: %w", err)
	}
	return ParseAuthorizedKeys(raw, path)
}

// Passphrase is a workshop passphrase, kept only as its SHA-256 digest so
// that comparing digests takes the same time whatever the guess's length.
type Passphrase [sha256.Size]byte

// LoadPassphrase reads the passphrase file at path: its first line, without
// the line ending. It refuses a passphrase shorter than 8 characters.
func LoadPassphrase(path string) (*Passphrase, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--passphrase-file: %w", err)
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	line = strings.TrimSuffix(line, "\r")
	if len([]rune(line)) < minPassphrase {
		return nil, fmt.Errorf("--passphrase-file %s: the passphrase (its first line) has %d characters, at least %d are needed", path, len([]rune(line)), minPassphrase)
	}
	p := Passphrase(sha256.Sum256([]byte(line)))
	return &p, nil
}

// Matches reports, in constant time, whether guess is the passphrase.
func (p *Passphrase) Matches(guess string) bool {
	g := sha256.Sum256([]byte(guess))
	return subtle.ConstantTimeCompare(p[:], g[:]) == 1
}
