package catcache

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSession(t *testing.T) {
	c := newCache(t)
	if s, ok := c.Session("s1"); ok || s != nil {
		t.Fatalf("empty cache: got %v, %v; want nothing known", s, ok)
	}
	s := &Session{Transcript: "/t/s1.jsonl", Size: 42, Pending: []string{"<skill c>", "<skill d>"}}
	s.Carry("<skill a>", "<skill b>")
	c.StoreSession("s1", s, false)
	got, ok := c.Session("s1")
	if !ok {
		t.Fatal("got nothing known of a stored session")
	}
	if got.Transcript != s.Transcript || got.Size != s.Size || !slices.Equal(got.Pending, s.Pending) {
		t.Errorf("got transcript %q size %d pending %q; want %q %d %q", got.Transcript, got.Size, got.Pending, s.Transcript, s.Size, s.Pending)
	}
	if got.Carries("<skill c>") {
		t.Error("a pending block is carried")
	}
	for _, tt := range []struct {
		block string
		want  bool
	}{{"<skill a>", true}, {"<skill b>", true}, {"<skill a> ", false}, {"", false}} {
		if got := got.Carries(tt.block); got != tt.want {
			t.Errorf("Carries(%q): got %v; want %v", tt.block, got, tt.want)
		}
	}
	if other, ok := c.Session("s2"); ok || other.Carries("<skill a>") {
		t.Errorf("another session: got %v, %v; want nothing known", other, ok)
	}
	got.Forget()
	if got.Carries("<skill a>") || got.Pending != nil {
		t.Error("a forgotten block is still carried or pending")
	}
}

// TestSessionBound: past maxSessionBlocks the memory starts again with
// the blocks added, and what is stored is read back whole.
func TestSessionBound(t *testing.T) {
	c := newCache(t)
	s := &Session{}
	for i := range maxSessionBlocks {
		s.Carry(strings.Repeat("x", i))
	}
	s.Carry("last")
	if s.Carries("") || !s.Carries("last") {
		t.Errorf("past the bound: got the first block %v, the last %v; want false, true", s.Carries(""), s.Carries("last"))
	}
	c.StoreSession("s", s, false)
	if got, ok := c.Session("s"); !ok || !got.Carries("last") {
		t.Errorf("got %v, %v; want the session read back", got, ok)
	}
}

func TestBadSession(t *testing.T) {
	tests := []struct {
		name  string
		spoil func([]byte) []byte
	}{
		{"truncated", func(d []byte) []byte { return d[:len(d)/2] }},
		{"bit flipped", func(d []byte) []byte { d[len(d)/2] ^= 1; return d }},
		{"another session's", func(d []byte) []byte { d[len(sessionMagic)] ^= 0xff; return reseal(d) }},
		{"token counts' bytes", func(d []byte) []byte { return reseal(append(countsMagic[:], d[len(countsMagic):]...)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache(t)
			s := &Session{Transcript: "/t/s.jsonl", Size: 1}
			s.Carry("<skill a>")
			c.StoreSession("s", s, false)
			name, _ := sessionFile("s")
			file := filepath.Join(c.Dir, name)
			data, err := os.ReadFile(file)
			must(t, err)
			must(t, os.WriteFile(file, tt.spoil(data), 0o600))
			if got, ok := c.Session("s"); ok {
				t.Fatalf("got %v; want the spoiled file ignored", got)
			}
		})
	}
	t.Run("writable by others", func(t *testing.T) {
		c := newCache(t)
		c.StoreSession("s", &Session{Transcript: "/t"}, false)
		name, _ := sessionFile("s")
		must(t, os.Chmod(filepath.Join(c.Dir, name), 0o666))
		if got, ok := c.Session("s"); ok {
			t.Errorf("got %v; want a file others could have written ignored", got)
		}
	})
}

// TestSessionPruned: a session not prompted for sessionAge is forgotten
// by the next store of a session new to the folder; the store of a known
// one does not prune (a prompt waited on it).
func TestSessionPruned(t *testing.T) {
	c := newCache(t)
	c.StoreSession("old", &Session{Transcript: "/t/old"}, false)
	name, _ := sessionFile("old")
	old := time.Now().Add(-sessionAge - time.Hour)
	must(t, os.Chtimes(filepath.Join(c.Dir, name), old, old))
	c.StoreSession("known", &Session{Transcript: "/t/known"}, true)
	if _, ok := c.Session("old"); !ok {
		t.Error("the store of a known session pruned the folder")
	}
	c.StoreSession("new", &Session{Transcript: "/t/new"}, false)
	if _, ok := c.Session("old"); ok {
		t.Error("a session older than sessionAge is still known")
	}
	if _, ok := c.Session("new"); !ok {
		t.Error("the session just stored is not known")
	}
}
