package compiler

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/rlmc-dev/rlmc/ir"
)

// tagRE finds anything a model could read as opening or closing a skill
// block: "<skill", "</skills", "< /SKILL", "<\u00a0/skills" and the like. It
// runs on text whose ignorable characters are already gone, so that they
// cannot split a tag; spacing may be any white space, Unicode space or
// control character. Look-alikes of "<" or "/" (fullwidth "＜", "／",
// division slash) are not tags and are left alone.
var tagRE = regexp.MustCompile(`(?i)<([\s\p{Z}\p{Cc}]*/?[\s\p{Z}\p{Cc}]*skills?)`)

// escapeBody makes a body unable to open or close a block: ignorable
// characters (every format character and default-ignorable code point, see
// ir.Ignorable) go first, so that they can neither hide text nor split a
// tag, then every tag-like "<skill" has its "<" escaped.
func escapeBody(body string) string {
	return tagRE.ReplaceAllString(ir.StripIgnorable(body), "&lt;$1")
}

// escapeAttr makes s safe inside a double-quoted attribute value: the
// markup characters become entities, and so does every character that is
// not printable or is ignorable (a byte that is not UTF-8 becomes U+FFFD).
// Valid skill names pass unchanged; the escaping is there so that no name,
// however it was derived, can close the attribute or the tag.
func escapeAttr(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&#39;")
		case !strconv.IsPrint(r) || ir.Ignorable(r):
			b.WriteString("&#x")
			b.WriteString(strconv.FormatInt(int64(r), 16))
			b.WriteByte(';')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// renderedUnit is a selected unit with its body, or, when ref is set, the
// unit rendered as a reference to its SKILL.md, or as given with an
// earlier prompt when given is set too.
type renderedUnit struct {
	name  string
	body  string
	ref   *ir.Unit
	given bool // Request.Carried holds its inline block
}

// renderPrompt wraps each body in <skill name="..."> inside one <skills>
// block, in selection order (inlineBlock); a reference is wrapped in
// <skill name="..." rendering="reference">, its text from referenceText
// with the path path gives, and a unit given with an earlier prompt in
// <skill name="..." rendering="given">, its text from givenText. Selected
// names follow the naming rule, and are escaped all the same. No
// selection renders as the empty string.
func renderPrompt(units []renderedUnit, path func(*ir.Unit) string) string {
	if len(units) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(promptOpen)
	for _, u := range units {
		switch {
		case u.given:
			b.WriteString(block(u.name, `" rendering="given`, givenText(u.name, path(u.ref))))
		case u.ref != nil:
			b.WriteString(block(u.name, `" rendering="reference`, referenceText(u.ref, path(u.ref))))
		default:
			b.WriteString(inlineBlock(u.name, u.body))
		}
	}
	b.WriteString(promptClose)
	return b.String()
}

// inlineBlock is the block of a unit rendered with its body, as a prompt
// holds it and SkillBlocks returns it.
func inlineBlock(name, body string) string { return block(name, "", body) }

// block is a unit's block: its opening tag with the attributes attrs
// (closing the name's quotes first), then text made unable to open or
// close a block, then its closing line.
func block(name, attrs, text string) string {
	return `<skill name="` + escapeAttr(name) + attrs + "\">\n" + strings.Trim(escapeBody(text), "\n") + blockClose
}

// SkillBlocks splits a prompt Compile rendered into its skills' blocks,
// in order, each from its <skill ...> line to its </skill> line, both
// included; nil for the empty prompt. No line of a body can open or close
// a block (bodies are escaped), so the split is exact. A host that sends
// a conversation's prompts together (the proxy) leaves out of a later
// prompt a block an earlier one carries, with JoinSkillBlocks.
func SkillBlocks(prompt string) []string {
	inner, ok := strings.CutPrefix(prompt, promptOpen)
	if !ok {
		return nil
	}
	inner, _ = strings.CutSuffix(inner, promptClose)
	var out []string
	for inner != "" {
		i := strings.Index(inner, blockClose)
		if i < 0 {
			return append(out, inner)
		}
		out = append(out, inner[:i+len(blockClose)])
		inner = inner[i+len(blockClose):]
	}
	return out
}

// InlineBlocks returns the blocks of res's prompt that give a selected
// unit's body in full (RenderingInline), in prompt order: the blocks a
// host that gives a conversation's prompts one at a time says the next
// compile carries (Request.Carried). The prompt holds one block for each
// selected unit, in the order of Selected.
func InlineBlocks(res *Result) []string {
	if res == nil {
		return nil
	}
	blocks := SkillBlocks(res.Prompt)
	var out []string
	for i, u := range res.Selected {
		if u.Rendering == RenderingInline && i < len(blocks) {
			out = append(out, blocks[i])
		}
	}
	return out
}

// SkillBlocksIn returns the blocks of each prompt Compile rendered that
// text holds (a message a host put one in), in order. A prompt at the
// end of text may have lost its last newline: shells' $(...) and many
// message stores trim it.
func SkillBlocksIn(text string) []string {
	var out []string
	if strings.HasSuffix(text, strings.TrimSuffix(promptClose, "\n")) {
		text += "\n"
	}
	for {
		i := strings.Index(text, promptOpen)
		if i < 0 {
			return out
		}
		text = text[i:]
		j := strings.Index(text, promptClose)
		if j < 0 {
			return out
		}
		out = append(out, SkillBlocks(text[:j+len(promptClose)])...)
		text = text[j+len(promptClose):]
	}
}

// CarriedIn returns a Request.Carried for a conversation that holds
// texts (the prompts Compile gave its earlier turns, or the messages they
// were put in): it carries a block that SkillBlocksIn finds in one of
// them, to the byte. Nil when they hold none: a block edited since, or
// given for another skill's version, is no longer carried.
func CarriedIn(texts ...string) func(block string) bool {
	held := map[string]bool{}
	for _, t := range texts {
		for _, b := range SkillBlocksIn(t) {
			held[b] = true
		}
	}
	if len(held) == 0 {
		return nil
	}
	return func(block string) bool { return held[block] }
}

// JoinSkillBlocks renders blocks, as SkillBlocks returns them, as one
// prompt: "" for none, else the blocks inside one <skills> block.
func JoinSkillBlocks(blocks []string) string {
	if len(blocks) == 0 {
		return ""
	}
	return promptOpen + strings.Join(blocks, "") + promptClose
}

// The lines that open and close a prompt and end a skill's block.
const (
	promptOpen  = "<skills>\n"
	promptClose = "</skills>\n"
	blockClose  = "\n</skill>\n"
)

// givenText is what stands for a unit whose block the conversation
// carries from an earlier prompt (Request.Carried): its name, a line
// saying its instructions were given earlier and apply to this task too,
// and the path of its SKILL.md to read if they are no longer there (the
// conversation was rewound or cut short since, which the host may not
// see). Thirty prompts on one topic carry its skill once, not thirty
// times.
func givenText(name, path string) string {
	return name + ": its instructions were given with an earlier prompt of this conversation, above: follow them for this task too.\n" +
		"If they are no longer above, read " + modelPath(path) + " before acting on this task, and follow it.\n"
}

// referenceText is what stands for a unit whose body does not fit the
// budget (rule 12): its name, its description, the path of its SKILL.md
// and one line telling the model to read it before acting, so the skill
// the task asked for is still the one the model follows, never silently
// swapped for a smaller one. The policy counts its tokens
// (reference_tokens/3) in place of the body's.
func referenceText(u *ir.Unit, path string) string {
	return u.Name + ": " + oneLine(u.Description) + "\n" +
		"Its instructions are too long to include here: read " + modelPath(path) + " before acting on this task, and follow it.\n"
}

// modelPath is how a block names the file at path for the model to read:
// the path itself, or, when the block's clean-up would change it (an
// invisible joiner dropped, "<skill" escaped) or break it over lines, the
// path as a JSON string: the model must be able to read the very file.
func modelPath(path string) string {
	if plainPath(path) {
		return path
	}
	return "the file whose path, as a JSON string, is " + escapedPath(path)
}

// plainPath reports whether a path holds only printable ASCII that the
// block's clean-up leaves as it is: no "<", "&", control or format
// character, nothing beyond ASCII.
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c > 0x7e || c == '<' || c == '&' || c == '"' {
			return false
		}
	}
	return true
}

// escapedPath is p as a JSON string whose every byte is printable ASCII
// other than "<" and "&": what is not is escaped as \uXXXX (a character
// beyond U+FFFF as its surrogate pair), so no clean-up changes it and a
// JSON reader gets the path back.
func escapedPath(p string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range p {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r <= 0x7e && r != '<' && r != '&':
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, "\\u%04x\\u%04x", r1, r2)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// oneLine is a description as one line of text: its runs of white space
// (line breaks included) one space, its control characters dropped. A
// reference is one line per skill; a description's own lines ("\n\n#
// Heading") would make it look like a section of the prompt, and a bell
// or an escape is nothing a model should read.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// referencePath is where a reference tells the model to read a unit's
// SKILL.md: its root joined with its path in the root.
func referencePath(u *ir.Unit) string { return filepath.Join(u.Root, filepath.FromSlash(u.Path)) }

// hasher builds fingerprints over a length-prefixed canonical encoding, so
// that no two different inputs encode alike. Each part is hashed as it is
// added: a catalog's fingerprint hashes every unit's JSON, which kept
// whole until the end was a tenth of what an uncached start allocated.
type hasher struct{ d hash.Hash }

func newHasher() *hasher { return &hasher{d: sha256.New()} }

func (h *hasher) add(s string) {
	h.length(len(s))
	io.WriteString(h.d, s)
}

func (h *hasher) addBytes(b []byte) {
	h.length(len(b))
	h.d.Write(b)
}

func (h *hasher) length(n int) {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], uint64(n))
	h.d.Write(buf[:])
}

func (h *hasher) sum() string { return "sha256:" + hex.EncodeToString(h.d.Sum(nil)) }

// promptFingerprint identifies a compiled prompt: the rendered text and the
// ordered (name, content digest) of the selected units. Task wording, paths,
// time and order of discovery do not enter it.
func promptFingerprint(prompt string, selected []*ir.Unit) string {
	h := newHasher()
	h.add("rlmc/prompt/v1")
	h.add(prompt)
	for _, u := range selected {
		h.add(u.Name)
		h.add(u.SHA256)
	}
	return h.sum()
}

// catalogFingerprint covers everything in the catalog a decision can read.
// For each admitted unit (status ok) that is its whole normalized form (see
// decisionFields): the content digest of SKILL.md, and every field the
// loader derived from any file, SKILL.md or the files beside it
// (agents/openai.yaml, manifest.json). Hashing the normalized unit rather
// than the digests of the files read keeps the rule independent of which
// files a layout reads and how: whatever reaches the unit is covered, and a
// field added to ir.Unit is covered unless decisionFields clears it. Units
// that are not admitted enter by name, status and precedence only, since
// their presence changes decisions (an explicit selection of an invalid
// unit fails differently from one of an absent unit) but their content does
// not. Units are taken in name order, so listing order does not matter.
func catalogFingerprint(cat *ir.Catalog) string {
	units := append([]*ir.Unit{}, cat.Units...)
	sort.SliceStable(units, func(i, j int) bool {
		if units[i].Name != units[j].Name {
			return units[i].Name < units[j].Name
		}
		return units[i].Precedence < units[j].Precedence
	})
	// A unit's root counts by its rank among the roots that hold units,
	// not by its place in the list of roots: a default root that does
	// not exist, or a root listed twice (loaded once), shifts the places
	// of the others and changes nothing a compile decides.
	rank := map[int]int{}
	for _, u := range units {
		rank[u.Precedence] = 0
	}
	for i, p := range slices.Sorted(maps.Keys(rank)) {
		rank[p] = i
	}
	h := newHasher()
	h.add("rlmc/catalog/v3")
	for _, u := range units {
		h.add(u.Name)
		h.add(string(u.Status))
		h.add(strconv.Itoa(rank[u.Precedence]))
		if u.Status == ir.StatusOK {
			h.addBytes(decisionFields(u))
		}
	}
	return h.sum()
}

// policyFingerprint covers what a decision reads of the host policy p:
// the catalog fingerprint covers the skills alone, and a policy rolled
// out to replicas (a deny lifted) changes answers while the catalog
// stays. What p says of loading (roots, exclude, limits) is left out: it
// acts through the catalog, which its fingerprint covers. A deny list is
// a set (order and repeats aside), and an empty list or map is none;
// mandatory units and requires edges keep their order, which orders what
// is admitted. JSON of a fixed struct is canonical, as in decisionFields.
func policyFingerprint(p Policy) string {
	deny := slices.Compact(slices.Sorted(slices.Values(p.Deny)))
	d := struct {
		Budget        int
		Tokenizer     string
		Mandatory     []string
		Deny          []string
		Priority      map[string]int
		Requires      map[string][]string
		Ambiguity     AmbiguityMode
		MinConfidence float64
		// Only the host mode is written: fingerprints from before the
		// key stay as they were.
		Invocation InvocationMode `json:",omitempty"`
	}{p.Budget, p.Tokenizer, p.Mandatory, deny, p.Priority, p.Requires, p.Ambiguity, p.MinConfidence, ""}
	if p.Invocation == InvocationHost {
		d.Invocation = InvocationHost
	}
	if len(d.Mandatory) == 0 {
		d.Mandatory = nil
	}
	if len(d.Deny) == 0 {
		d.Deny = nil
	}
	if len(d.Priority) == 0 {
		d.Priority = nil
	}
	if len(d.Requires) == 0 {
		d.Requires = nil
	}
	data, err := json.Marshal(&d)
	if err != nil {
		// Every field is a string, a number or a list or map of them.
		panic("rlmc: cannot encode a policy for its fingerprint: " + err.Error())
	}
	h := newHasher()
	h.add("rlmc/policy/v1")
	h.addBytes(data)
	return h.sum()
}

// decisionFields is the canonical JSON of a unit without the fields that
// only locate it or that no decision reads: Root, Path, File and
// Precedence, which the caller counts by rank (a catalog
// moved elsewhere keeps its fingerprint), ShadowedBy (a path), Variant
// (informational, and partly derived from the root's path) and HostFields
// (recorded, never interpreted, and already covered by SHA256). JSON of a
// fixed struct is canonical: fields in declaration order, map keys sorted,
// strings quoted.
func decisionFields(u *ir.Unit) []byte {
	v := *u
	v.Root, v.Path, v.File, v.ShadowedBy, v.Variant, v.HostFields = "", "", "", "", "", nil
	v.Precedence = 0 // counted by its rank (catalogFingerprint)
	data, err := json.Marshal(&v)
	if err != nil {
		// Every remaining field is a string, a number or a list or map of
		// them, which always encode; a failure is a programming error.
		panic("rlmc: cannot encode a unit for its fingerprint: " + err.Error())
	}
	return data
}
