package catcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"time"

	"github.com/rlmc-dev/rlmc/internal/binenc"
)

// A session's file remembers the skill blocks a client's per-prompt hook
// gave one conversation (a Claude Code session), so that a prompt whose
// skill the conversation already holds gets a line pointing to it instead
// of the whole block again. It is keyed by the session's id, and says
// which transcript the blocks went into and how long it was at the last
// prompt. A block given with a prompt is pending until the transcript
// shows it (a prompt another hook blocked, or a hook killed after it
// answered, never got it to the conversation); what the hook does with a
// transcript (compacted since, shorter, another file) is the hook's.
//
// The file: sessionMagic, the key (32 bytes), a binenc encoding of the
// transcript's path, its size, the carried blocks' SHA-256 digests,
// sorted, and the pending blocks' texts, then a CRC-32C of everything
// before it (see frame).

// sessionSuffix ends the name of a session's file.
const sessionSuffix = ".session"

var sessionMagic = [8]byte{'R', 'L', 'M', 'C', 'S', 'E', 'S', 0}

// sessionAge is how long a session's file is kept after its last prompt
// (prune): a conversation resumed later gets its skills again in full.
const sessionAge = 7 * 24 * time.Hour

// Bounds of a session's file: past maxSessionBlocks, the memory starts
// again (Carry; a block forgotten is given again at worst);
// maxSessionBytes holds that many digests, a path and the pending blocks
// of a hook's output (Claude Code takes at most 10,000 characters).
const (
	maxSessionBlocks = 4096
	maxSessionBytes  = 1 << 20
)

// Session is what a conversation was given: the blocks it carries, those
// given with the last prompt and not yet seen in its transcript, and the
// transcript with its size at the last prompt.
type Session struct {
	Transcript string
	Size       int64
	blocks     map[[32]byte]bool
	// Pending are the blocks given with the last prompt, as given.
	Pending []string
}

// Carries reports whether block, to the byte, was given to the session
// and seen in its transcript.
func (s *Session) Carries(block string) bool {
	return s != nil && s.blocks[sha256.Sum256([]byte(block))]
}

// Carrying reports whether the session carries any block.
func (s *Session) Carrying() bool { return s != nil && len(s.blocks) > 0 }

// Carry remembers blocks as carried by the session. Past
// maxSessionBlocks the memory starts again with them.
func (s *Session) Carry(blocks ...string) {
	if s.blocks == nil || len(s.blocks)+len(blocks) > maxSessionBlocks {
		s.blocks = map[[32]byte]bool{}
	}
	for _, b := range blocks {
		s.blocks[sha256.Sum256([]byte(b))] = true
	}
}

// Forget drops every block remembered, carried or pending: the
// conversation no longer holds them (it was compacted, or is another).
func (s *Session) Forget() { s.blocks, s.Pending = nil, nil }

// sessionFile returns the name of the file of the session id and its key.
func sessionFile(id string) (string, [32]byte) {
	k := sha256.Sum256([]byte("rlmc session\x00" + id))
	return hex.EncodeToString(k[:16]) + sessionSuffix, k
}

// Session returns what was given to the session id, and false when
// nothing is known of it (no file, or one that does not check out: it is
// then ignored, and replaced by the next StoreSession).
func (c *Cache) Session(id string) (*Session, bool) {
	if c == nil || id == "" {
		return nil, false
	}
	name, key := sessionFile(id)
	return readChecked(c, name, maxSessionBytes, key, func(data []byte, _ bool, key [32]byte) (*Session, error) { return parseSession(data, key) })
}

func parseSession(data []byte, key [32]byte) (*Session, error) {
	r, err := unframe(data, sessionMagic, key)
	if err != nil {
		return nil, err
	}
	s := &Session{Transcript: r.Str(), Size: r.Int()}
	n := r.Len()
	if n > maxSessionBlocks || s.Size < 0 {
		return nil, binenc.ErrCorrupt
	}
	s.blocks = make(map[[32]byte]bool, n)
	for range n {
		raw := r.Raw()
		if r.Err() != nil || len(raw) != sha256.Size {
			return nil, binenc.ErrCorrupt
		}
		s.blocks[[32]byte(raw)] = true
	}
	s.Pending = r.Strs()
	if err := r.Done(); err != nil {
		return nil, err
	}
	return s, nil
}

// StoreSession writes what was given to the session id, atomically. It
// never fails the caller: a session not remembered gets its blocks again.
// The folder is pruned (prune) when the session is new to it (known is
// false), not at every prompt: a prompt's hook waited on a folder of
// thousands of sessions' files after it answered.
func (c *Cache) StoreSession(id string, s *Session, known bool) {
	if c == nil || id == "" || s == nil {
		return
	}
	name, key := sessionFile(id)
	digests := slices.SortedFunc(maps.Keys(s.blocks), func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
	w := binenc.NewWriter()
	w.Str(s.Transcript)
	w.Int(s.Size)
	w.Uint(uint64(len(digests)))
	for _, d := range digests {
		w.Raw(d[:])
	}
	w.Strs(s.Pending)
	buf := frame(sessionMagic, key, w)
	c.writeFile(name, int64(len(buf)), maxSessionBytes, writeBytes(buf), !known)
}
