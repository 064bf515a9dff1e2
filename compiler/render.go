package compiler

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rlmc-dev/rlmc/ir"
)

// tagRE finds anything a model could read as opening or closing a skill
// block: "<skill", "</skills", "< /SKILL" and the like.
var tagRE = regexp.MustCompile(`(?i)<(\s*/?\s*skills?)`)

// invisible are zero-width and bidirectional control characters. Inside a
// prompt they only serve to hide text from the people reading it.
var invisible = strings.NewReplacer(
	"\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "",
	"\u202a", "", "\u202b", "", "\u202c", "", "\u202d", "", "\u202e", "",
	"\u2066", "", "\u2067", "", "\u2068", "", "\u2069", "", "\u200e", "", "\u200f", "",
)

// escapeBody makes a body unable to open or close a block: invisible
// characters go first (so they cannot split a tag), then every tag-like
// "<skill" has its "<" escaped.
func escapeBody(body string) string {
	return tagRE.ReplaceAllString(invisible.Replace(body), "&lt;$1")
}

// renderedUnit is a selected unit with its body.
type renderedUnit struct {
	name string
	body string
}

// renderPrompt wraps each body in <skill name="..."> inside one <skills>
// block, in selection order. Names are valid skill names, so they need no
// quoting. No selection renders as the empty string.
func renderPrompt(units []renderedUnit) string {
	if len(units) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<skills>\n")
	for _, u := range units {
		b.WriteString(`<skill name="`)
		b.WriteString(u.name)
		b.WriteString("\">\n")
		body := strings.Trim(escapeBody(u.body), "\n")
		b.WriteString(body)
		b.WriteString("\n</skill>\n")
	}
	b.WriteString("</skills>\n")
	return b.String()
}

// hasher builds fingerprints over a length-prefixed canonical encoding, so
// that no two different inputs encode alike.
type hasher struct{ h [][]byte }

func (h *hasher) add(s string) { h.h = append(h.h, []byte(s)) }

func (h *hasher) sum() string {
	d := sha256.New()
	var n [8]byte
	for _, b := range h.h {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		d.Write(n[:])
		d.Write(b)
	}
	return "sha256:" + hex.EncodeToString(d.Sum(nil))
}

// promptFingerprint identifies a compiled prompt: the rendered text and the
// ordered (name, content digest) of the selected units. Task wording, paths,
// time and order of discovery do not enter it.
func promptFingerprint(prompt string, selected []*ir.Unit) string {
	h := &hasher{}
	h.add("rlmc/prompt/v1")
	h.add(prompt)
	for _, u := range selected {
		h.add(u.Name)
		h.add(u.SHA256)
	}
	return h.sum()
}

// catalogFingerprint covers every admitted unit (status ok): name, content
// digest and precedence, in name order, so listing order does not matter.
func catalogFingerprint(cat *ir.Catalog) string {
	var units []*ir.Unit
	for _, u := range cat.Units {
		if u.Status == ir.StatusOK {
			units = append(units, u)
		}
	}
	sort.Slice(units, func(i, j int) bool {
		if units[i].Name != units[j].Name {
			return units[i].Name < units[j].Name
		}
		return units[i].Precedence < units[j].Precedence
	})
	h := &hasher{}
	h.add("rlmc/catalog/v1")
	for _, u := range units {
		h.add(u.Name)
		h.add(u.SHA256)
		h.add(strconv.Itoa(u.Precedence))
	}
	return h.sum()
}
