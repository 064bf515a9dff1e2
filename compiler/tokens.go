package compiler

import (
	"fmt"
	"maps"
	"runtime"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Tokenizers rlmc counts with. Both vocabularies are embedded in the binary.
var Tokenizers = []string{"o200k_base", "cl100k_base"}

var codecs sync.Map // encoding name -> func() (tokenizer.Codec, error)

// codecFor returns the named BPE codec, loading its vocabulary on first use
// only: loading costs tens of milliseconds, which a compile that counts
// nothing should not pay.
func codecFor(name string) (func() (tokenizer.Codec, error), error) {
	var enc tokenizer.Encoding
	switch name {
	case "o200k_base":
		enc = tokenizer.O200kBase
	case "cl100k_base":
		enc = tokenizer.Cl100kBase
	default:
		return nil, fmt.Errorf("unknown tokenizer %q (want o200k_base or cl100k_base)", name)
	}
	load, _ := codecs.LoadOrStore(name, sync.OnceValues(func() (tokenizer.Codec, error) {
		// The vocabulary (12.6 MB for o200k_base) is kept for as long as
		// the process runs. A command started from the catalog cache
		// leaves the load's garbage uncollected (internal/gctune's ease):
		// collected first, the vocabulary fills that memory rather than
		// adding to it (6 MiB less RSS for a hook over 5,000 skills).
		runtime.GC()
		return tokenizer.Get(enc)
	}))
	return load.(func() (tokenizer.Codec, error)), nil
}

// tokenCache remembers token counts by tokenizer and content digest, so a
// body is counted once per catalog whatever the number of compiles.
type tokenCache struct {
	mu     sync.RWMutex
	counts map[string]int
}

func (c *tokenCache) get(key string) (int, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n, ok := c.counts[key]
	return n, ok
}

func (c *tokenCache) put(key string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[key] = n
}

// seed adds counts made earlier (by another process, through the cache).
func (c *tokenCache) seed(counts map[string]int) {
	if len(counts) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = make(map[string]int, len(counts))
	}
	maps.Copy(c.counts, counts)
}

// snapshot returns a copy of the counts.
func (c *tokenCache) snapshot() map[string]int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return maps.Clone(c.counts)
}

// CountTokens counts text with the named tokenizer; "" names
// DefaultTokenizer, as it does in a Request and a Policy.
func CountTokens(name, text string) (int, error) {
	if name == "" {
		name = DefaultTokenizer
	}
	load, err := codecFor(name)
	if err != nil {
		return 0, err
	}
	codec, err := load()
	if err != nil {
		return 0, err
	}
	return codec.Count(text)
}
