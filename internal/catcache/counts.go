package catcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"maps"
	"slices"

	"github.com/rlmc-dev/rlmc/internal/binenc"
)

// Token counts are kept apart from the catalogs: a body's count depends on
// the tokenizer and the body's digest alone (the compiler keys it
// "tokenizer:sha256"), so one table serves every catalog, and a process
// that selects a skill counted before needs no tokenizer vocabulary, the
// largest fixed cost of a start (tens of milliseconds). The table is keyed
// by the build only: another rlmc may count with another tokenizer.
//
// The file: countsMagic, the build key (32 bytes), a binenc encoding of the
// entries sorted by key, then a CRC-32C of everything before it.

// countsSuffix ends the name of a token count file.
const countsSuffix = ".counts"

var countsMagic = [8]byte{'R', 'L', 'M', 'C', 'T', 'O', 'K', 0}

// maxCounts bounds the table: past it, the oldest file is not grown, it is
// started again with the counts of the last run (a count is cheap to
// make again; a table that grows for ever is not).
const maxCounts = 100_000

// countsFile returns the name of the token count file in c's folder, and
// its key.
func (c *Cache) countsFile() (string, [32]byte) {
	h := sha256.New()
	put := func(s string) {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	put("rlmc token counts")
	putBuild(put)
	var k [32]byte
	h.Sum(k[:0])
	return hex.EncodeToString(k[:16]) + countsSuffix, k
}

// Counts returns the token counts stored by this build, keyed as the
// compiler keys them; nil when there are none or the file does not check
// out (it is then ignored, and replaced by the next StoreCounts).
func (c *Cache) Counts() map[string]int {
	if c == nil {
		return nil
	}
	file, key := c.countsFile()
	m, _ := readChecked(c, file, maxCountsBytes, key, func(data []byte, _ bool, key [32]byte) (map[string]int, error) { return parseCounts(data, key) })
	return m
}

func parseCounts(data []byte, key [32]byte) (map[string]int, error) {
	r, err := unframe(data, countsMagic, key)
	if err != nil {
		return nil, err
	}
	n := r.Len()
	m := make(map[string]int, n)
	for range n {
		k, v := r.Str(), r.Uint()
		if r.Err() != nil || v > 1<<40 {
			return nil, binenc.ErrCorrupt
		}
		m[k] = int(v)
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	return m, nil
}

// StoreCounts writes counts (the compiler's, which include those Counts
// returned) when it holds any that stored does not, atomically: two
// processes storing at once leave one table or the other, whole.
func (c *Cache) StoreCounts(stored, counts map[string]int) {
	if c == nil || len(counts) == 0 {
		return
	}
	grew := false
	for k := range counts {
		if _, ok := stored[k]; !ok {
			grew = true
			break
		}
	}
	if !grew {
		return
	}
	if len(counts) > maxCounts {
		fresh := map[string]int{}
		for k, v := range counts {
			if _, ok := stored[k]; !ok {
				fresh[k] = v
			}
		}
		counts = fresh
	}
	file, key := c.countsFile()
	w := binenc.NewWriter()
	keys := slices.Sorted(maps.Keys(counts))
	w.Uint(uint64(len(keys)))
	for _, k := range keys {
		w.Str(k)
		w.Uint(uint64(counts[k]))
	}
	buf := frame(countsMagic, key, w)
	c.write(file, int64(len(buf)), maxCountsBytes, writeBytes(buf))
}

// frame is a side file of the cache folder (token counts, a session's
// blocks): magic, the key it was written under (32 bytes), the binenc
// encoding w holds, then a CRC-32C of everything before it.
func frame(magic [8]byte, key [32]byte, w *binenc.Writer) []byte {
	buf := make([]byte, 0, len(magic)+len(key)+w.Len()+4)
	buf = append(buf, magic[:]...)
	buf = append(buf, key[:]...)
	buf = w.AppendTo(buf)
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
}

// unframe checks a side file frame wrote under magic and key and returns
// a reader of its encoding.
func unframe(data []byte, magic [8]byte, key [32]byte) (*binenc.Reader, error) {
	head := len(magic) + len(key)
	if len(data) < head+4 || !bytes.Equal(data[:len(magic)], magic[:]) {
		return nil, binenc.ErrCorrupt
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("checksum: %w", binenc.ErrCorrupt)
	}
	if !bytes.Equal(data[len(magic):head], key[:]) {
		return nil, errStale
	}
	return binenc.NewReader(body[head:])
}
