package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/safefs"
)

// hookSession is what the hook remembers of the conversation a prompt
// belongs to: the skill blocks it gave with the session's earlier prompts,
// which Claude Code keeps in the conversation (a hook's context is part of
// its prompt's message) until the conversation is compacted. A prompt
// whose skill the conversation holds gets a short block pointing to it,
// not the whole block again (compiler.GiveOnce).
type hookSession struct {
	cache *catcache.Cache
	id    string
	mem   *catcache.Session
	given compiler.Given // what the last compile gives
}

// compactMark is what Claude Code writes in a session's transcript when it
// compacts the conversation: every block given before is gone from it,
// summarised at best.
var compactMark = []byte(`"subtype":"compact_boundary"`)

// maxTranscriptScan bounds what the hook reads of a transcript, the part
// written since the last prompt: past it, the conversation is taken as
// holding none of the blocks (they are given again), rather than read.
const maxTranscriptScan = 64 << 20

// openSession returns the conversation of in, or nil when the hook cannot
// tell what it holds: no catalog cache to remember in, no session id or
// transcript in the input (an older client, a hand-run hook), or a
// transcript that is not a file. A conversation whose transcript is
// another, shorter than when the blocks were given, or compacted since,
// holds none of them.
func openSession(cache *catcache.Cache, in hookInput) *hookSession {
	id, _ := in.SessionID.(string)
	path, _ := in.TranscriptPath.(string)
	if cache == nil || id == "" || path == "" {
		return nil
	}
	size, err := transcriptSize(path)
	if err != nil {
		return nil
	}
	mem, ok := cache.Session(id)
	if !ok {
		mem = &catcache.Session{}
	}
	if mem.Transcript != path || mem.Size > size || compacted(path, mem.Size, size) {
		mem.Forget()
	}
	mem.Transcript, mem.Size = path, size
	return &hookSession{cache: cache, id: id, mem: mem}
}

// give is the prompt the hook gives for res: res's, with the blocks the
// conversation holds left as short ones.
func (s *hookSession) give(res *compiler.Result) string {
	if s == nil {
		return res.Prompt
	}
	s.given = compiler.GiveOnce(res, s.mem.Carries)
	return s.given.Prompt
}

// earlier names the units the last prompt given points to, given earlier.
func (s *hookSession) earlier() []string {
	if s == nil {
		return nil
	}
	return s.given.Earlier
}

// commit remembers the blocks the last prompt gives in full; the hook
// calls it once that prompt is written to Claude Code, so that a block
// cut off at the deadline is not taken as given.
func (s *hookSession) commit() {
	if s == nil || len(s.given.Full) == 0 {
		return
	}
	s.mem.Add(s.given.Full...)
	s.cache.StoreSession(s.id, s.mem)
}

// transcriptSize returns the size of the transcript at path: 0 when it
// does not exist yet (a session's first prompt), an error when it is not a
// regular file.
func transcriptSize(path string) (int64, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return 0, err
	case !info.Mode().IsRegular():
		return 0, &fs.PathError{Op: "stat", Path: path, Err: safefs.ErrNotRegular}
	}
	return info.Size(), nil
}

// compacted reports whether the transcript at path was compacted between
// byte from and byte to, or may have been: what cannot be read, or is
// longer than maxTranscriptScan, counts as compacted.
func compacted(path string, from, to int64) bool {
	if from >= to {
		return false
	}
	if to-from > maxTranscriptScan {
		return true
	}
	f, err := os.OpenFile(path, safefs.ReadOnly, 0)
	if err != nil {
		return true
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return true
	}
	// Read in pieces that overlap by the mark's length less one, so
	// that no mark is cut in two.
	buf := make([]byte, 0, 1<<20)
	r := io.NewSectionReader(f, from, to-from)
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if bytes.Contains(buf, compactMark) {
			return true
		}
		if err == io.EOF {
			return false
		}
		if err != nil {
			return true
		}
		if keep := len(compactMark) - 1; len(buf) > keep {
			buf = append(buf[:0], buf[len(buf)-keep:]...)
		}
	}
}
