package class

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// StoreSchema is the schema number of a saved class (DECISIONS "Schema
// stamps"); bump it whenever the file's meaning changes.
const StoreSchema = 1

// ErrNewerSchema refuses a saved class written by a newer dpscope.
var ErrNewerSchema = errors.New("the saved class was written by a newer dpscope")

// stored is a saved class: the participants' names and their runs, so that
// the board survives a restart (listeners and pushes are the live
// sessions', and are not saved).
type stored struct {
	Schema  int            `json:"schema"`
	Version string         `json:"dpscope_version"`
	Members []storedMember `json:"members"`
	Runs    []Run          `json:"runs"`
}

type storedMember struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Encode returns the class as JSON stamped with dpscope's version and
// StoreSchema.
func (r *Registry) Encode(version string) ([]byte, error) {
	r.mu.Lock()
	st := stored{Schema: StoreSchema, Version: version, Members: make([]storedMember, 0, len(r.members)), Runs: slices.Clone(r.runs)}
	for id, m := range r.members {
		st.Members = append(st.Members, storedMember{ID: id, Name: m.name})
	}
	r.mu.Unlock()
	slices.SortFunc(st.Members, func(a, b storedMember) int { return strings.Compare(a.ID, b.ID) })
	return json.MarshalIndent(st, "", " ")
}

// Decode reads a class that Encode wrote. It refuses a newer schema
// (ErrNewerSchema) and text that is not a saved class; what it accepts is
// made to hold the registry's rules again (names sanitised and unique,
// every run its member's, the bounds), since the file may have been edited.
func Decode(b []byte) (*Registry, error) {
	var st stored
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("not a saved class: %w", err)
	}
	switch {
	case st.Schema > StoreSchema:
		return nil, fmt.Errorf("%w (schema %d, dpscope %q; this one reads schema %d): upgrade dpscope or move the file away", ErrNewerSchema, st.Schema, st.Version, StoreSchema)
	case st.Schema < 1:
		return nil, fmt.Errorf("not a saved class: schema %d", st.Schema)
	}
	r := NewRegistry()
	for _, m := range st.Members {
		if m.ID == "" || r.members[m.ID] != nil {
			return nil, fmt.Errorf("saved class: member id %q empty or repeated", m.ID)
		}
		if len(r.members) >= MaxMembers {
			return nil, fmt.Errorf("saved class: more than %d members", MaxMembers)
		}
		name := r.unique(DefaultName(m.Name))
		r.members[m.ID] = &member{name: name}
		r.names[fold(name)] = m.ID
	}
	// Keep the newest runs within the bounds, in their order.
	if len(st.Runs) > MaxRuns {
		st.Runs = st.Runs[len(st.Runs)-MaxRuns:]
	}
	for _, run := range st.Runs {
		m := r.members[run.Member]
		if m == nil {
			return nil, fmt.Errorf("saved class: a run of %q, who is no member", run.Member)
		}
		if m.runs >= MaxRunsPerMember {
			continue
		}
		run.Name = m.name
		r.runs = append(r.runs, run)
		m.runs++
	}
	return r, nil
}

// Save writes the class to path (0600) through a temporary file renamed
// into place, so a crash never leaves half a file.
func (r *Registry) Save(path, version string) error {
	b, err := r.Encode(version)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("saving the class: %w", err)
	}
	_, werr := f.Write(b)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("saving the class: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("saving the class: %w", err)
	}
	return nil
}

// Load reads the class saved at path: an empty class when there is no
// file, and Decode's error (naming path) when it cannot be read.
func Load(path string) (*Registry, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return NewRegistry(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
