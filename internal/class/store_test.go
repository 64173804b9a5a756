package class

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveLoadRoundTrip: names and runs come back from the file, an absent
// file is an empty class, a newer schema is refused by name, and text that
// is no saved class is an error naming the file.
func TestSaveLoadRoundTrip(t *testing.T) {
	r := NewRegistry()
	a, _ := r.Join("pass-0000000000000001", "ada", false)
	b, _ := r.Join("key-02", "bo", false)
	if _, err := b.Rename("Bo B."); err != nil {
		t.Fatal(err)
	}
	for i, s := range []*Seat{a, b, a} {
		if err := s.Report(Run{Method: "dpsgd", Epsilon: float64(i + 1), ARI: 0.5, Data: "builtin:default"}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "class.json")
	if err := r.Save(path, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), `"schema": 1`) || !strings.Contains(string(raw), `"dpscope_version": "v1.2.3"`) {
		t.Errorf("no schema stamp in %s", raw)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	runs := got.snapshot()
	if len(runs) != 3 || runs[0].Name != "ada" || runs[1].Name != "Bo B." || runs[2].Epsilon != 3 {
		t.Errorf("loaded runs %+v", runs)
	}
	// The members keep their names and a new one cannot take them.
	if s, _ := got.Join("key-02", "other", false); s.Name() != "Bo B." {
		t.Errorf("key-02 is %q after the load, want Bo B.", s.Name())
	}
	if s, _ := got.Join("key-03", "ada", false); s.Name() != "ada-2" {
		t.Errorf("a newcomer wanting a loaded name got %q, want ada-2", s.Name())
	}
	if e, err := Load(filepath.Join(t.TempDir(), "none.json")); err != nil || len(e.snapshot()) != 0 {
		t.Errorf("absent file: %v, %v", e, err)
	}
	newer := filepath.Join(t.TempDir(), "class.json")
	os.WriteFile(newer, []byte(`{"schema": 2, "dpscope_version": "v9", "members": [], "runs": []}`), 0o600)
	if _, err := Load(newer); !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), newer) {
		t.Errorf("newer schema: %v, want ErrNewerSchema naming the file", err)
	}
	for _, bad := range []string{`{garbage`, `{"schema": 0}`, `[]`, `{"schema":1,"members":[{"id":""}]}`,
		`{"schema":1,"members":[],"runs":[{"Member":"ghost"}]}`, `{"schema":1,"members":[{"id":"a"},{"id":"a"}]}`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%s) accepted", bad)
		}
	}
}

// TestDecodeRestoresRules: an edited file's duplicate and unprintable names
// are made unique and clean, and runs past a member's bound are dropped.
func TestDecodeRestoresRules(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"schema":1,"members":[{"id":"a","name":"Ann"},{"id":"b","name":"ann"},{"id":"c","name":"\u001b[31mx"}],"runs":[`)
	for i := range MaxRunsPerMember + 5 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"Member":"a","Epsilon":1}`)
	}
	sb.WriteString(`]}`)
	r, err := Decode([]byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for id, m := range r.members {
		if names[fold(m.name)] || strings.ContainsRune(m.name, 0x1b) {
			t.Errorf("member %s: name %q repeated or unclean", id, m.name)
		}
		names[fold(m.name)] = true
	}
	if n := len(r.runs); n != MaxRunsPerMember || r.members["a"].runs != n {
		t.Errorf("%d runs kept (member count %d), want %d", n, r.members["a"].runs, MaxRunsPerMember)
	}
}

// FuzzDecode: any bytes give a class or an error, never a panic; a class
// that is accepted holds the registry's rules and encodes to a file that
// decodes to the same runs.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"schema":1,"dpscope_version":"v1","members":[{"id":"a","name":"Ann"}],"runs":[{"Member":"a","Epsilon":2,"ARI":0.5}]}`))
	f.Add([]byte(`{"schema":2}`))
	f.Add([]byte(`{garbage`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			return
		}
		if len(r.members) > MaxMembers || len(r.runs) > MaxRuns {
			t.Fatalf("bounds broken: %d members, %d runs", len(r.members), len(r.runs))
		}
		seen := map[string]bool{}
		for _, m := range r.members {
			if m.name == "" || seen[fold(m.name)] || len([]rune(m.name)) > MaxNameLen {
				t.Fatalf("name %q empty, repeated or too long", m.name)
			}
			seen[fold(m.name)] = true
		}
		enc, err := r.Encode("fuzz")
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-decoding an encoded class: %v", err)
		}
		if len(again.runs) != len(r.runs) || len(again.members) != len(r.members) {
			t.Fatalf("round trip: %d/%d runs, %d/%d members", len(again.runs), len(r.runs), len(again.members), len(r.members))
		}
	})
}
