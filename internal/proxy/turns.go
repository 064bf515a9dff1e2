package proxy

import (
	"compress/flate"
	"compress/gzip"
	"hash/maphash"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/rlmc-dev/rlmc/compiler"
)

// Placement says where the skill block goes.
//
// PlacementTurn (the default) attaches each user turn's block to that
// turn: a first text part (or a prefix of a string content) of the user
// message it was compiled from. Providers cache a request's prefix
// (tools, system, earlier messages); a block in front of the system prompt
// changes that prefix whenever a new user turn selects other skills, and
// the whole conversation is then read again at full price. Attached to its
// turn, a block is part of the conversation: each earlier turn's block is
// compiled again from the same text, or remembered, so it comes out as the
// same bytes, and everything the upstream received for the earlier part
// of the conversation is sent again byte for byte, while the new turn
// brings its own skills.
//
// PlacementSystem is the placement of earlier releases: the block of the
// last user turn in front of the system prompt, for hosts whose model
// must read skills as system text.
type Placement string

const (
	PlacementTurn   Placement = "turn"
	PlacementSystem Placement = "system"
)

// DefaultMemory is the default cap, in entries, of each of the proxy's two
// memories: the blocks of earlier user turns, and the skills of the
// Responses conversations it forwarded (by response id). Both are
// least-recently-used lists, also capped at memoryBytes of blocks each (a
// block can reach the compile's token budget, tens of KiB), so the proxy's
// memory stays bounded whatever its traffic.
const DefaultMemory = 4096

// memoryBytes caps the bytes of blocks each memory holds.
const memoryBytes = 16 << 20

// entryCost is what one memory entry is counted for beyond its block: its
// key, list element and map slot.
const entryCost = 128

// DecisionUnknownConversation is the decision of a Responses call chained
// to a response the proxy did not see or no longer remembers (by
// previous_response_id), with no user text of its own: its skills cannot
// be known, and it is forwarded as sent. Under turn placement the skills of
// the turn that started the conversation are still in the upstream's
// stored conversation, attached to that turn.
const DecisionUnknownConversation = "unknown_conversation"

// turn is one user message that carries text.
type turn struct {
	text    string
	content span // the message's content, which receives the block
	end     int  // the end of the message in the body
}

// userTurns returns the user messages of msgs that carry text, in order.
func userTurns(body []byte, msgs []span, types ...string) []turn {
	var out []turn
	for _, m := range msgs {
		if strField(body, m, "role") != "user" {
			continue
		}
		c, ok := field(body, m, "content")
		if !ok {
			continue
		}
		if t := textOf(body, c, types...); t != "" {
			out = append(out, turn{text: t, content: c, end: m.end})
		}
	}
	return out
}

// chatTurns returns the user turns of a Chat Completions or Messages
// request, and the span of its message list.
func chatTurns(body []byte, root span) ([]turn, span) {
	m, _ := field(body, root, "messages")
	msgs, _ := elements(body, m)
	return userTurns(body, msgs, "text"), m
}

// responsesTurns returns the user turns of a Responses request: input as
// a string is one turn.
func responsesTurns(body []byte, root span) ([]turn, span) {
	in, ok := field(body, root, "input")
	if !ok {
		return nil, span{}
	}
	if kind(body, in) == '"' {
		// Read as a message's string is: without a client's context
		// tags, its attached files fenced.
		s := textOf(body, in)
		if s == "" {
			return nil, in
		}
		return []turn{{text: s, content: in, end: in.end}}, in
	}
	items, _ := elements(body, in)
	return userTurns(body, items, "input_text", "text"), in
}

// intoTurn puts block into a user message's content: a string gains it
// as a prefix; a list of parts gains a text part just before its first
// text part, of that part's type. Not at the list's start: Anthropic
// wants a turn's tool results before its text.
func intoTurn(body []byte, content span, block string, types ...string) (edit, error) {
	if kind(body, content) == '"' {
		return prependString(content, block), nil
	}
	parts, _ := elements(body, content)
	for _, p := range parts {
		typ := strField(body, p, "type")
		if slices.Contains(types, typ) && strField(body, p, "text") != "" {
			part := append(append([]byte(`{"type":`), encodeString(typ)...), `,"text":`...)
			part = append(append(part, encodeString(block)...), "},"...)
			return edit{at: p.start, end: p.start, text: part}, nil
		}
	}
	return edit{}, errShape
}

// turnKeys returns, for each turn, a key of the conversation up to and
// including it: the bytes of the list from its start to the turn's end, as
// the client sent them (clients send a conversation's history again as
// they sent it), after salt. Two conversations share a turn's key only
// when they agree on everything up to it, so a block remembered for one
// (with the host's selections) never lands in another. One pass over the
// list; maphash is seeded per process, and the keys never leave it.
func turnKeys(seed maphash.Seed, salt string, body []byte, list span, turns []turn) []uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(salt)
	keys := make([]uint64, len(turns))
	at := list.start
	for i, t := range turns {
		h.Write(body[at:t.end])
		at = t.end
		keys[i] = h.Sum64()
	}
	return keys
}

// blockKey names an earlier turn's block: the catalog it was compiled
// with (its epoch: a reload that changes the skills or the policy compiles
// again), and the turn's key.
type blockKey struct {
	gen uint64
	key uint64
}

// conversation is what the proxy remembers of a Responses call, by the id
// of its response, for the calls chained to it.
type conversation struct {
	decision, fingerprint string
	selected              []string
	prompt                string // the block; under system placement, sent again in instructions
	// task and selects are the turn that started the conversation and the
	// host's selections on it, from which a chained call compiles again.
	task    string
	selects []string
	// carried are the skill blocks the conversation's inputs hold
	// upstream (turn placement), which its chained calls do not send
	// again.
	carried []string
}

// convKey is the request context key of the conversation whose response
// id the proxy learns from the answer.
type convKey struct{}

// captureMax bounds the bytes of an answer searched for its response id
// (and, for a gzip answer, what they decode to): the id is at the start of the first
// event of a stream and among the first members of a JSON answer, and is
// read as soon as it has arrived (idFinder).
const captureMax = 64 << 10

// maxResponseID bounds the response ids remembered (OpenAI's are about 50
// bytes).
const maxResponseID = 256

// idCatcher passes a Responses answer through and remembers its
// conversation under the answer's id as soon as the id has arrived, before
// the bytes holding it reach the client, so that a chained call the client
// sends next always finds it.
type idCatcher struct {
	io.ReadCloser
	stream bool
	gzip   bool
	done   bool
	found  func(id string)
	// feed reads the answer as it comes (idFinder, sseFinder), each
	// byte once: searched again from its start at every read, a 64 KiB
	// answer an upstream sent 16 bytes at a time, its id last, cost a
	// second of CPU.
	feed func([]byte) (id string, final bool)
	read int // the bytes read so far, up to captureMax
	// unzip decodes a gzip answer as it comes (each byte once: its start
	// decoded again at each read cost a second of CPU for an answer sent
	// 16 bytes at a time).
	unzip *gunzipper
}

func (c *idCatcher) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	if !c.done {
		if c.feed == nil {
			c.feed = (&idFinder{}).feed
			if c.stream {
				c.feed = newSSEFinder().feed
			}
		}
		c.read += n
		var (
			id    string
			final bool
		)
		if c.gzip {
			if c.unzip == nil {
				c.unzip = newGunzipper(c.feed)
			}
			id, final = c.unzip.write(p[:n])
		} else {
			id, final = c.feed(p[:n])
		}
		// An id longer than any API's is an upstream's mistake or attack,
		// and would cost the memory its length: no chain is kept for it.
		if id != "" && len(id) <= maxResponseID {
			c.found(id)
		}
		if final || id != "" || err != nil || c.read >= captureMax {
			c.done = true
			c.unzip.close()
		}
	}
	return n, err
}

// Close closes the answer, and ends its decoding if it was not over.
func (c *idCatcher) Close() error {
	c.done = true // a read after it feeds no decoder that is gone
	c.unzip.close()
	return c.ReadCloser.Close()
}

// gunzipper feeds what a gzip stream decodes to, written to it a piece at
// a time, to a finder, each byte once. compress/flate decodes from a
// reader and cannot be resumed once its reader runs dry, so it runs on a
// goroutine of its own that reads the pieces from a channel; write hands
// it a piece and returns once it has decoded all it can of what it was
// given and asks for more (or ended), so that an id in a piece is known
// before the piece is handed on. It decodes what compress/flate yields of
// a stream cut where the pieces end: the blocks a sync or full flush
// ended, and the last one. A block ended by a partial flush (zlib's
// Z_PARTIAL_FLUSH) is yielded only when 32 KB have come or the stream
// ends, so an id in it is learnt that much later, and a client that
// stops reading first leaves its chain unknown.
type gunzipper struct {
	in     chan []byte   // the pieces; closed when no more are given
	hungry chan struct{} // the decoder took every byte given, and waits
	ended  chan struct{} // the decoder is gone
	closed bool

	// The decoder's own, read by write once hungry or ended says it
	// waits or is gone.
	feed    func([]byte) (string, bool)
	pending []byte
	started bool
	id      string
	final   bool
}

func newGunzipper(feed func([]byte) (string, bool)) *gunzipper {
	g := &gunzipper{in: make(chan []byte), hungry: make(chan struct{}), ended: make(chan struct{}), feed: feed}
	go g.decode()
	return g
}

// write gives the decoder one piece, and returns the id it found and
// whether it is done looking.
func (g *gunzipper) write(piece []byte) (id string, final bool) {
	if len(piece) > 0 {
		select {
		case g.in <- piece:
			select {
			case <-g.hungry:
			case <-g.ended:
			}
		case <-g.ended:
		}
	}
	select {
	case <-g.ended:
		return g.id, true
	default:
		return "", false
	}
}

// close lets the decoder go; nil-safe, and safe to call again.
func (g *gunzipper) close() {
	if g != nil && !g.closed {
		g.closed = true
		close(g.in)
	}
}

func (g *gunzipper) decode() {
	defer close(g.ended)
	// The deflate stream of each member is read past its gzip header,
	// not through gzip.Reader, which holds the last block's bytes back
	// until the 8-byte trailer after it has arrived: the id would be
	// known later than the bytes that end it. A stream of several
	// members (RFC 1952, 2.2) is read member after member.
	var zr io.ReadCloser
	buf := make([]byte, 4096)
	// A bomb decodes to no more than the bytes an id is looked for in.
	for total := 0; total < captureMax; {
		if zr == nil {
			if skipGzipHeader(g) != nil {
				return
			}
			zr = flate.NewReader(g)
		}
		n, err := zr.Read(buf[:min(len(buf), captureMax-total)])
		total += n
		if n > 0 {
			if g.id, g.final = g.feed(buf[:n]); g.id != "" || g.final {
				return
			}
		}
		switch {
		case err == io.EOF:
			// The member's trailer (CRC-32, size), then the next
			// member's header, if any.
			for range 8 {
				if _, err := g.ReadByte(); err != nil {
					return
				}
			}
			zr = nil
		case err != nil:
			return
		}
	}
}

// skipGzipHeader reads a gzip member's header (RFC 1952, 2.3), leaving r
// at its deflate stream.
func skipGzipHeader(r io.ByteReader) error {
	var h [10]byte
	for i := range h {
		b, err := r.ReadByte()
		if err != nil {
			return err
		}
		h[i] = b
	}
	const fhcrc, fextra, fname, fcomment = 1 << 1, 1 << 2, 1 << 3, 1 << 4
	if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 {
		return gzip.ErrHeader
	}
	skip := func(n int) error {
		for range n {
			if _, err := r.ReadByte(); err != nil {
				return err
			}
		}
		return nil
	}
	zero := func() error {
		for {
			b, err := r.ReadByte()
			if err != nil || b == 0 {
				return err
			}
		}
	}
	flags := h[3]
	if flags&fextra != 0 {
		lo, err := r.ReadByte()
		if err != nil {
			return err
		}
		hi, err := r.ReadByte()
		if err != nil {
			return err
		}
		if err := skip(int(lo) | int(hi)<<8); err != nil {
			return err
		}
	}
	for _, f := range []byte{fname, fcomment} {
		if flags&f != 0 {
			if err := zero(); err != nil {
				return err
			}
		}
	}
	if flags&fhcrc != 0 {
		return skip(2)
	}
	return nil
}

// ReadByte gives the decoder the pieces' bytes; as an io.ByteReader it
// is read directly, not through a buffer that would take bytes ahead of
// what it decodes.
func (g *gunzipper) ReadByte() (byte, error) {
	for len(g.pending) == 0 {
		if g.started {
			g.hungry <- struct{}{}
		}
		piece, ok := <-g.in
		if !ok {
			return 0, io.EOF
		}
		g.pending, g.started = piece, true
	}
	b := g.pending[0]
	g.pending = g.pending[1:]
	return b, nil
}

// Read is ReadByte's, for an io.Reader.
func (g *gunzipper) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	b, err := g.ReadByte()
	if err != nil {
		return 0, err
	}
	p[0] = b
	n := 1
	for n < len(p) && len(g.pending) > 0 {
		c := copy(p[n:], g.pending)
		g.pending = g.pending[c:]
		n += c
	}
	return n, nil
}

// acceptsGzip reports whether Accept-Encoding values take gzip.
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for enc := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(enc, ";")
			if strings.EqualFold(strings.TrimSpace(name), "gzip") && !refused(params) {
				return true
			}
		}
	}
	return false
}

// refused reports whether the parameters of an Accept-Encoding value
// refuse it: a q-value of 0 however written ("q=0", "Q=0.0", "q=0.000").
func refused(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q == 0
		}
	}
	return false
}

// catchID wraps a Responses answer's body to remember c under the
// answer's response id.
func (p *Proxy) catchID(resp *http.Response, c *conversation) io.ReadCloser {
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	if enc != "" && enc != "identity" && enc != "gzip" {
		p.log.Warn("a Responses answer in an encoding the proxy cannot read: the calls chained to it will say "+DecisionUnknownConversation, "content_encoding", enc)
		return resp.Body
	}
	return &idCatcher{
		ReadCloser: resp.Body,
		stream:     strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"),
		gzip:       enc == "gzip",
		found:      func(id string) { p.convs.Put(id, c) },
	}
}

// partsAll returns body with edits (sorted by offset, not overlapping)
// made, as the slices of body and the edits' texts to send one after the
// other: no copy of the body is made.
func partsAll(body []byte, edits []edit) [][]byte {
	parts := make([][]byte, 0, 2*len(edits)+1)
	at := 0
	for _, e := range edits {
		parts = append(parts, body[at:e.at], e.text)
		at = e.end
	}
	return append(parts, body[at:])
}

// heldBlocks returns the skill blocks a message's content already holds:
// a host that put rlmc's block in a message, or a proxy in front of this
// one, sends it on, and the same block attached again paid for each
// skill twice.
func heldBlocks(body []byte, content span, types ...string) []string {
	parts, _ := textParts(body, content, types...)
	var out []string
	for _, p := range parts {
		out = append(out, compiler.SkillBlocksIn(p)...)
	}
	return out
}
