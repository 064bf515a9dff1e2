// Package realcat writes catalogs of skills shaped like the ones people
// publish: a SKILL.md of 3 to 4 KB (frontmatter with a long description,
// then a body of headings, prose, lists and a code block), a vocabulary of
// common technical words and a long tail of made-up product and library
// names, a few skills that require another, a few that only the user may
// invoke, and a few with a reference file their body links to. The
// start-up harness (internal/bench/startup) measures rlmc over them; the
// generic catalogs of internal/testkit are a few hundred bytes a skill.
//
// It imports nothing of ours.
package realcat

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// PerRoot is the number of skills in one root: with their category folders
// and reference folders, under the loader's bound of 2,000 folders a root.
const PerRoot = 1000

// common is the head of the vocabulary: words every skill collection
// uses, drawn most often.
var common = strings.Fields(`
api app audit backup bug build bundle cache certificate change chart check
ci cli client cloud cluster code commit compile component config container
coverage credential css customer dashboard data database debug dependency
deploy design diff docker document domain email endpoint environment error
event experiment export feature file fix form format function git graph
handler header hook image import incident index infrastructure input
integration invoice issue job json key kubernetes label latency layout
ledger library lint load log metric migration mobile model module monitor
network notebook notification package page payment performance permission
pipeline plan plot policy pool port post pricing profile project prompt
query queue react readme record refactor release render report repository
request resource response review role route rule schema script search
secret security server service session setting shell sql stack storage
stream style subscription table task template terraform test ticket token
trace translation type upload user validation variable vector version
video view webhook workflow worker yaml accessibility analytics animation
architecture authentication authorization benchmark billing branch browser
campaign caption changelog checkout churn compliance contract conversion
copy cron csv decision diagram docstring onboarding outage payroll persona
postmortem privacy regression retention roadmap runbook sandbox screenshot
sitemap snapshot spreadsheet sprint survey thread throughput timeline
tutorial typescript python golang rust java kotlin swift ruby php scala
elixir haskell terraform ansible helm nginx postgres redis kafka spark
airflow pandas numpy pytorch tensorflow jupyter figma stripe slack jira
github gitlab sentry datadog grafana prometheus openapi graphql grpc oauth
`)

// verbs lead descriptions, steps and names.
var verbs = strings.Fields(`
analyze audit automate benchmark build check clean compare compile
configure convert create debug deploy design diagnose document draft
estimate evaluate explain export extract fix format generate import
inspect instrument migrate monitor optimize organize parse plan profile
publish refactor release render review rewrite scaffold schedule score
search secure set-up simplify split summarize sync test trace translate
triage tune update upgrade validate visualize write
`)

// glue are the words prose is held together with: stop words the
// analysis drops, as in real text.
var glue = strings.Fields(`
the a an and or of to in for with on when this that it is are be by from
as at your you we use using before after into each every only not should
can will must then also any all more most if so than but which what how
`)

// syllables make the long tail: names of products, libraries, internal
// services, which give a real catalog most of its distinct terms.
var syllables = strings.Fields(`ka lo mi nu pe ra si tu vo ze bi do fa gu
he jo ly mo ne pi qu ro sa te ur va wi xo yu zo bra cle dri fro gla pla
sko stra tri vel dor mak nix pol ron sul tek vin`)

// Options shape a catalog. The zero value is the default.
type Options struct {
	// Seed makes the catalog: the same seed, the same files.
	Seed uint64
	// Tail is the number of made-up words (default 6,000).
	Tail int
}

// Skill is one generated skill, as written.
type Skill struct {
	Name        string
	Description string
	Dir         string   // the skill folder
	Explicit    bool     // disable-model-invocation: true
	Requires    string   // the skill it requires, or ""
	Size        int      // bytes of SKILL.md
	Verb        string   // what it does
	Topic       []string // what it is about: its product, then common words
}

// Catalog is a generated catalog on disk.
type Catalog struct {
	Roots  []string
	Skills []Skill
	// Bytes is the total size of every SKILL.md.
	Bytes int64
}

// Write writes n skills below dir (made when missing), in roots of PerRoot
// skills laid out as rootK/CATEGORY/NAME/SKILL.md, and dates every file
// and folder an hour back, so a cache trusts them at once (rlmc trusts no
// file modified in the last two seconds).
func Write(dir string, n int, o Options) (*Catalog, error) {
	g := newGen(o)
	cat := &Catalog{}
	used := map[string]bool{}
	for i := range n {
		root := filepath.Join(dir, fmt.Sprintf("root%02d", i/PerRoot))
		if i%PerRoot == 0 {
			cat.Roots = append(cat.Roots, root)
		}
		s, text, ref := g.skill(i, used, cat.Skills)
		s.Dir = filepath.Join(root, g.category(i), s.Name)
		if err := os.MkdirAll(s.Dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(s.Dir, "SKILL.md"), []byte(text), 0o644); err != nil {
			return nil, err
		}
		if ref != "" {
			if err := os.MkdirAll(filepath.Join(s.Dir, "references"), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(s.Dir, "references", "guide.md"), []byte(ref), 0o644); err != nil {
				return nil, err
			}
		}
		s.Size = len(text)
		cat.Bytes += int64(len(text))
		cat.Skills = append(cat.Skills, s)
	}
	back := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(path, back, back)
	})
	return cat, err
}

type gen struct {
	rng   *rand.Rand
	tail  []string
	zipf  *rand.Zipf
	cats  []string
	words []string // common then tail: what zipf draws from
}

func newGen(o Options) *gen {
	g := &gen{rng: rand.New(rand.NewPCG(o.Seed, 0x5eed))}
	n := o.Tail
	if n <= 0 {
		n = 6000
	}
	seen := map[string]bool{}
	for len(g.tail) < n {
		k := 2 + g.rng.IntN(2)
		var b strings.Builder
		for range k {
			b.WriteString(syllables[g.rng.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			g.tail = append(g.tail, w)
		}
	}
	g.words = append(append([]string{}, common...), g.tail...)
	g.zipf = rand.NewZipf(g.rng, 1.1, 8, uint64(len(g.words)-1))
	for i := range 37 {
		g.cats = append(g.cats, fmt.Sprintf("%s-%s", common[(i*7)%len(common)], verbs[(i*5)%len(verbs)]))
	}
	return g
}

func (g *gen) category(i int) string { return g.cats[i%len(g.cats)] }

// word draws a content word: common ones often, the tail rarely.
func (g *gen) word() string { return g.words[g.zipf.Uint64()] }

// topic draws the few words a skill is about: one or two of the tail (its
// product or library) and a few common ones.
func (g *gen) topic() []string {
	t := []string{g.tail[g.rng.IntN(len(g.tail))]}
	if g.rng.IntN(2) == 0 {
		t = append(t, g.tail[g.rng.IntN(len(g.tail))])
	}
	for range 3 {
		t = append(t, common[g.rng.IntN(len(common))])
	}
	return t
}

func (g *gen) pick(ws []string) string { return ws[g.rng.IntN(len(ws))] }

// sentence writes a sentence of n words or so, mixing topic words, drawn
// words and glue.
func (g *gen) sentence(b *strings.Builder, topic []string, n int) {
	for i := range n {
		var w string
		switch r := g.rng.IntN(10); {
		case r < 4:
			w = g.pick(glue)
		case r < 6:
			w = g.pick(topic)
		case r < 7:
			w = g.pick(verbs)
		default:
			w = g.word()
		}
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		if g.rng.IntN(40) == 0 {
			w = "`" + w + "`"
		}
		b.WriteString(w)
		if i < n-1 && g.rng.IntN(12) == 0 {
			b.WriteByte(',')
		}
	}
	b.WriteString(". ")
}

func (g *gen) paragraph(b *strings.Builder, topic []string, sentences int) {
	for range sentences {
		g.sentence(b, topic, 8+g.rng.IntN(14))
	}
	b.WriteString("\n\n")
}

// skill returns skill i, its SKILL.md and, for some, a reference file.
func (g *gen) skill(i int, used map[string]bool, before []Skill) (Skill, string, string) {
	topic := g.topic()
	verb := g.pick(verbs)
	name := strings.ReplaceAll(verb, "-", "") + "-" + topic[0]
	if g.rng.IntN(2) == 0 {
		name += "-" + topic[2]
	}
	for k := 2; used[name]; k++ {
		name = fmt.Sprintf("%s-%s-%d", strings.ReplaceAll(verb, "-", ""), topic[0], k)
	}
	used[name] = true
	s := Skill{Name: name, Explicit: i%31 == 7, Verb: verb, Topic: topic}

	var d strings.Builder
	fmt.Fprintf(&d, "%s %s %s for %s. Use when the user asks to %s %s, ", strings.ToUpper(verb[:1])+verb[1:], topic[2], topic[3], topic[0], verb, topic[4%len(topic)])
	fmt.Fprintf(&d, "mentions %q, %q or %q, or works on ", topic[0], topic[1]+" "+topic[2], g.word()+" "+g.word())
	for k := range 6 + g.rng.IntN(10) {
		if k > 0 {
			d.WriteString(" ")
		}
		d.WriteString(g.word())
	}
	d.WriteString(".")
	s.Description = d.String()

	var f strings.Builder
	f.WriteString("---\n")
	f.WriteString("name: " + name + "\n")
	f.WriteString("description: " + strings.ReplaceAll(s.Description, ": ", " - ") + "\n")
	if g.rng.IntN(4) == 0 {
		f.WriteString("license: MIT\n")
	}
	if g.rng.IntN(3) == 0 {
		f.WriteString("allowed-tools: Read, Grep, Bash\n")
	}
	if s.Explicit {
		f.WriteString("disable-model-invocation: true\n")
	}
	meta := []string{"  version: 1." + fmt.Sprint(g.rng.IntN(9)) + ".0"}
	if i%10 == 4 && len(before) > 0 {
		// A dependency on an earlier skill the model may load.
		for k := len(before) - 1; k >= 0 && k >= len(before)-5; k-- {
			if !before[k].Explicit && before[k].Requires == "" {
				s.Requires = before[k].Name
				break
			}
		}
	}
	if s.Requires != "" {
		meta = append(meta, fmt.Sprintf(`  prolog-rlm: '{"schema": 1, "category": "%s", "requires": [{"kind": "skill", "name": "%s"}]}'`, topic[2], s.Requires))
	}
	f.WriteString("metadata:\n" + strings.Join(meta, "\n") + "\n")
	f.WriteString("---\n\n")

	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s\n\n", strings.ToUpper(verb[:1])+verb[1:], strings.Join(topic[:2], " "))
	g.paragraph(&b, topic, 3)
	b.WriteString("## When to use\n\n")
	for range 4 + g.rng.IntN(3) {
		b.WriteString("- ")
		g.sentence(&b, topic, 6+g.rng.IntN(8))
		b.WriteString("\n")
	}
	b.WriteString("\n## Workflow\n\n")
	for k := range 5 + g.rng.IntN(4) {
		v := g.pick(verbs)
		fmt.Fprintf(&b, "%d. **%s %s**: ", k+1, strings.ToUpper(v[:1])+v[1:], g.pick(topic))
		g.sentence(&b, topic, 10+g.rng.IntN(12))
		b.WriteString("\n")
	}
	ref := ""
	if i%9 == 2 {
		ref = "# Guide\n\n" + strings.Repeat("Details of the "+topic[0]+" workflow.\n", 20)
		b.WriteString("\nSee [the guide](references/guide.md) for the full option list.\n")
	}
	b.WriteString("\n## Example\n\n```bash\n")
	for range 3 + g.rng.IntN(4) {
		fmt.Fprintf(&b, "%s %s --%s %s\n", topic[0], strings.ReplaceAll(g.pick(verbs), "-", ""), g.word(), g.word())
	}
	b.WriteString("```\n\n")
	for _, h := range []string{"## Guidelines", "## Pitfalls", "## Output", "## Notes"} {
		if f.Len()+b.Len() > 3000+g.rng.IntN(900) {
			break
		}
		b.WriteString(h + "\n\n")
		g.paragraph(&b, topic, 3+g.rng.IntN(3))
	}
	for f.Len()+b.Len() < 3000 {
		g.paragraph(&b, topic, 2)
	}
	return s, f.String() + b.String(), ref
}

// Prompt returns a user prompt that asks for what skill s does, in words
// of its topic, as a user of that skill would write it.
func Prompt(s Skill) string {
	return fmt.Sprintf("can you %s the %s %s for %s? it broke after the last change", s.Verb, s.Topic[2], s.Topic[3], s.Topic[0])
}
