// Package compiler turns a task, trusted host input and a catalog into the
// skill block a planner receives, with an explanation of every decision and
// a stable fingerprint. It owns the compile and render stages; the decisions
// themselves are made by the Prolog policy in package rules.
package compiler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/pulse"
	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/internal/rules"
	"github.com/rlmc-dev/rlmc/ir"
)

// Stage names a step of the compile pipeline. Stage names appear in
// explanations and errors.
type Stage string

// The compile stages, in order.
const (
	StageAnalyze     Stage = "analyze"
	StageRetrieve    Stage = "retrieve"
	StageMeasure     Stage = "measure"
	StageDecide      Stage = "decide"
	StageRender      Stage = "render"
	StageFingerprint Stage = "fingerprint"
)

// StageLoad is the stage of an error raised while a catalog is loaded
// (Load, LoadWith, New, Watch), before any compile.
const StageLoad Stage = "load"

// Request is one compile's input. Task is untrusted text of at most
// MaxTaskBytes; Select and Deny are trusted host decisions.
type Request struct {
	Task      string
	Select    []string
	Deny      []string
	Budget    int    // tokens; 0 means the policy's or DefaultBudget
	Tokenizer string // "" means the policy's or DefaultTokenizer
	// Why names units the result must list whatever became of them (each
	// unit bearing the name, shadowed namesakes too), so that "why did X
	// not load" has an answer when X is one Result.Unlisted only counts.
	// A name no unit bears lists nothing. It changes no decision.
	Why []string
	// AllRejected lists every rejected unit in Result.Rejected, as
	// schema 1 did, and leaves Result.Unlisted empty. It changes no
	// decision.
	AllRejected bool
	// Carried reports whether the conversation the compile is for
	// already carries a block, as SkillBlocks splits a prompt: a host
	// that gives a conversation's prompts one at a time (a per-prompt
	// hook) says which it gave with earlier prompts. A selected unit
	// whose inline block it carries is rendered as given (a short block
	// saying its instructions were given earlier, with the path of its
	// SKILL.md), and costs the budget that block's tokens, not its
	// body's: what the budget holds is what is sent. A body that costs
	// no more than the short block is sent again, and a unit rule 12
	// makes a reference with its closure is one. Nil carries none. It is
	// called during the compile, at most once per unit, from the
	// goroutine that called Compile: a function shared by concurrent
	// compiles must be safe for that; one that panics fails the compile
	// (policy_error).
	Carried func(block string) bool `json:"-"`
}

// MaxTaskBytes bounds Request.Task, in bytes: a longer task is an
// ErrInvalidRequest, never analyzed in part. Every pass over the task is
// linear in its length, so the bound is on memory and time, not a guard
// against blow-up: a task this long compiles in well under a second over a
// catalog of dozens of skills.
const MaxTaskBytes = 1 << 20

// clipJoin separates the two ends ClipTask keeps: a paragraph break, so
// that no phrase or word pair is read across the cut.
const clipJoin = "\n\n"

// ClipTask returns task when it fits MaxTaskBytes, else its first and last
// parts joined by a paragraph break, MaxTaskBytes in all, cut between
// characters; whole is len(task). A front-end whose task is taken from a
// conversation (a proxied completion, a hook's prompt, a wrapped planner
// call) uses it: a user may send a message of any length, and what asks
// for a skill is most often said before or after what was pasted. A task
// the host gives (rlmc compile, rlmc serve) is never clipped: over the
// bound it is an ErrInvalidRequest.
func ClipTask(task string) (clipped string, whole int) {
	if len(task) <= MaxTaskBytes {
		return task, len(task)
	}
	half := (MaxTaskBytes - len(clipJoin)) / 2
	head := half
	for head > 0 && !utf8.RuneStart(task[head]) {
		head--
	}
	tail := len(task) - half
	for tail < len(task) && !utf8.RuneStart(task[tail]) {
		tail++
	}
	return task[:head] + clipJoin + task[tail:], len(task)
}

// Compiler holds a loaded catalog, its index, graph and policy engine. Build
// it once and call Compile many times; it is safe for concurrent use.
type Compiler struct {
	cat       *ir.Catalog
	policy    Policy
	index     *retrieval.Index
	facts     *facts
	engine    *rules.Engine
	tokens    tokenCache
	catalogFP string
	policyFP  string
	diags     ir.Diagnostics
	denied    map[string]bool
	// spell indexes the units by their names and folders folded, for a
	// deny spelled otherwise (denyTargets).
	spell func() *spellings
	// names tells the unit a name no unit bears most likely meant
	// (namer), made once per catalog: a request naming unknown units
	// asks it every time.
	names func() *namer
	rows  []unitRow // what a rejected entry takes from each unit, by position
	// eligibility keeps eligible/3's verdict on each lexical candidate
	// judged in a plain request (see statement.plain), by name: a
	// *rules.Decision rejecting it, or nil when it is eligible. In such a
	// request the verdict reads only the catalog and the host policy,
	// which a Compiler never changes, and asking the interpreter again
	// was a tenth of a compile.
	eligibility sync.Map
	// cache is the catalog cache LoadWith used (nil: none), and
	// storedCounts the token counts it held then: StoreCache writes back
	// the counts made since.
	cache        *catcache.Cache
	cacheKey     catcache.Key
	storedCounts map[string]int
	// memo answers requests compiled before (nil: off; LiveOptions.Memo).
	memo *memo
}

// posOf returns u's position in the catalog. The catalog is sorted
// (ir.CompareUnits), so a search finds it: a compile asks for a few
// units, and a map of every unit cost each start its size.
func (c *Compiler) posOf(u *ir.Unit) int {
	if i, ok := slices.BinarySearchFunc(c.cat.Units, u, ir.CompareUnits); ok && c.cat.Units[i] == u {
		return i
	}
	// A loaded catalog's keys are unique; one made by hand may repeat
	// them.
	return slices.Index(c.cat.Units, u)
}

// New prepares a compiler over cat with the host policy p. It fails when
// cat is nil, when p fails Policy.Validate, or when the embedded Prolog
// policy does not load.
func New(cat *ir.Catalog, p Policy) (*Compiler, error) {
	if cat == nil {
		return nil, &Error{Stage: StageLoad, Code: ErrInvalidRequest, Message: "compiler.New: no catalog (nil)"}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return newCompiler(context.Background(), cat, p)
}

// newCompiler is New under a context: building the index of a large
// catalog is long, and Load's deadline must bound it too. When ctx is done
// it returns an ErrCanceled error that unwraps to ctx.Err().
func newCompiler(ctx context.Context, cat *ir.Catalog, p Policy) (*Compiler, error) {
	policy := rules.Prepare()
	defer policy.Wait()
	return newCompilerIndex(ctx, cat, p, nil, "", policy)
}

// newCompilerIndex is newCompiler over an index of cat already built (or
// decoded from a cache; a nil ix is built here), its catalog fingerprint
// when the cache had it (else "", computed here) and a policy whose loading
// the caller started, so that it overlaps loading the catalog. The caller
// waits for the policy (rules.Pending.Wait) on its way out, so that it
// leaves nothing running whether or not the engine was taken.
func newCompilerIndex(ctx context.Context, cat *ir.Catalog, p Policy, ix *retrieval.Index, fp string, policy *rules.Pending) (*Compiler, error) {
	pl := pulse.New(ctx)
	c := &Compiler{cat: cat, policy: p, denied: map[string]bool{}}
	c.spell = sync.OnceValue(func() *spellings { return newSpellings(cat) })
	c.names = sync.OnceValue(func() *namer { return newNamer(cat) })
	// What the compiler, its facts and engine and the fingerprint take
	// from the catalog depends on the catalog alone: they are made on
	// every core, beside the index when there is one to build (a start
	// from the cache ends with them). The index's own diagnostics (aliases
	// and triggers it ignores) come with it, from the cache too.
	var wg sync.WaitGroup
	defer wg.Wait() // on every return: nothing made here outlives it
	wg.Go(func() { c.rows = newRows(cat) })
	if c.policy.Budget == 0 {
		c.policy.Budget = DefaultBudget
	}
	if c.policy.Tokenizer == "" {
		c.policy.Tokenizer = DefaultTokenizer
	}
	if c.policy.Ambiguity == "" {
		c.policy.Ambiguity = AmbiguityAsk
	}
	if c.policy.Invocation == "" {
		c.policy.Invocation = InvocationTask
	}
	for _, n := range p.Deny {
		for _, t := range c.denyTargets(n) {
			c.denied[t] = true
		}
	}
	c.index = ix
	if c.index == nil {
		c.index = retrieval.Build(cat, pl)
	}
	if pl.Now() {
		return nil, canceled(StageLoad, pl.Err())
	}
	if fp == "" {
		wg.Go(func() { fp = catalogFingerprint(cat) })
	}
	c.facts = newFacts(cat, c.policy)
	engine, err := policy.Engine(c.facts)
	wg.Wait()
	if err != nil {
		return nil, &Error{Stage: StageDecide, Code: ErrPolicy, Message: err.Error()}
	}
	c.engine = engine
	c.catalogFP = fp
	c.policyFP = policyFingerprint(c.policy)
	c.diags = append(ir.Diagnostics{}, cat.Diagnostics...)
	// The loader knows the policy's exclude entries, not the file they
	// came from: its diagnostics about them are placed at the list.
	for i := range c.diags {
		if d := &c.diags[i]; d.Root == "" && d.Path == "policy" && d.Code == ir.CodeUnmatchedExclude && c.policy.source.file != "" {
			d.Path, d.Line = c.policy.source.file, c.policy.source.exclude
		}
	}
	c.diags = append(c.diags, c.index.Diagnostics()...)
	hinted := 0
	for _, n := range c.policy.names() {
		if _, ok := cat.Lookup(n); !ok {
			path, line := c.policy.at("", n)
			// A policy shared by many catalogs may name thousands of
			// units this one lacks: the closest name is looked for in
			// the first few only, a load's bound.
			hint := ""
			if hinted < maxUnknownNamed {
				hint, hinted = c.names().hint(n), hinted+1
				if slices.Contains(c.policy.Deny, n) {
					if h := c.spelledHint(n); h != "" {
						hint = h
					}
				}
			}
			c.diags.Add(ir.Diagnostic{Path: path, Line: line, Code: ir.CodeUnknownPolicyUnit, Severity: ir.SeverityWarning, Message: fmt.Sprintf("host policy names unit %q, which is not in the catalog%s", n, hint)})
		}
	}
	c.diags.Sort()
	return c, nil
}

// Load is the usual way to build a compiler: load the roots, then New.
// What it loads is what Resolve decides: opts.Roots, else the policy's
// roots, else the default roots; a root named any way but the built-in
// defaults that is not a folder is a *loader.RootError.
func Load(ctx context.Context, opts Options, p Policy) (*Compiler, error) {
	return LoadWith(ctx, opts, p, nil)
}

// LoadWith is Load through a persistent catalog cache (nil: none): what
// has not changed on disk since the cache was written is taken from it,
// unread, and the cache is brought up to date. The compiler equals
// Load's in every output; a cache that cannot be read or written is not
// used, never an error. See package catcache for what it trusts.
func LoadWith(ctx context.Context, opts Options, p Policy, cache *Cache) (*Compiler, error) {
	if ctx == nil {
		return nil, errNilContext(StageLoad)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	r := Resolve(opts, p, Env{})
	key, ok := policyKey(p)
	if !ok {
		cache = nil
	}
	policy := rules.Prepare()
	defer policy.Wait()
	if cache == nil {
		cat, _, err := loader.LoadResolved(ctx, r)
		if err != nil {
			return nil, loadError(err)
		}
		return newCompilerIndex(ctx, cat, p, nil, "", policy)
	}
	cat, ix, fp, _, err := cache.LoadDerived(ctx, r, key, catalogFingerprint)
	if err != nil {
		return nil, loadError(err)
	}
	if ix == nil {
		return nil, canceled(StageLoad, ctx.Err())
	}
	c, err := newCompilerIndex(ctx, cat, p, ix, fp, policy)
	if err != nil {
		return nil, err
	}
	c.cache, c.cacheKey, c.storedCounts = cache, cache.KeyOf(r, key), cache.Counts()
	c.tokens.seed(c.storedCounts)
	return c, nil
}

// errNilContext is the error of a call given a nil context, which a
// worker goroutine would otherwise meet as a panic no caller can recover.
func errNilContext(stage Stage) *Error {
	return &Error{Stage: stage, Code: ErrInvalidRequest, Message: "nil context: pass context.Background() or the caller's own"}
}

// loadError is a load's error as Load documents it: a context done while
// the loader read the catalog is an ErrCanceled *Error, as it is while the
// index is built (the loader returned the context's error bare).
func loadError(err error) error {
	var ce *Error
	if !errors.As(err, &ce) && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return canceled(StageLoad, err)
	}
	return err
}

// policyKey returns the policy's part of the cache key; ok is false when
// the policy cannot key a cache (a policy always marshals; if one ever did
// not, the cache is not used).
func policyKey(p Policy) ([]byte, bool) {
	key, err := json.Marshal(p)
	return key, err == nil
}

// CacheKey names the file of cache in which LoadWith(ctx, opts, p, cache)
// keeps its catalog, for a host that asks whether it is there
// (Cache.Has) or being built (Cache.Building, Cache.LockBuild) before it
// loads.
func CacheKey(opts Options, p Policy, cache *Cache) catcache.Key {
	key, _ := policyKey(p)
	return cache.KeyOf(Resolve(opts, p, Env{}), key)
}

// StoreCache writes to the catalog cache the compiler was loaded through
// what its compiles learned that the cache lacks: the token counts of the
// bodies they measured, so that a later process selecting the same skills
// loads no tokenizer. Without a cache it does nothing; like every cache
// write, it never fails the caller.
func (c *Compiler) StoreCache() {
	if c != nil && c.cache != nil {
		c.cache.StoreCounts(c.storedCounts, c.tokens.snapshot())
	}
}

// BodyTokens returns the tokens of the body of u, a unit of the
// compiler's catalog, in the compiler's tokenizer, counted once per body:
// taken from the counts the catalog cache keeps or from an earlier count,
// else read, checked against the digest the catalog holds (a body edited
// since is a body_changed error) and counted. StoreCache keeps the new
// counts for the next process. It is safe for concurrent use.
func (c *Compiler) BodyTokens(u *ir.Unit) (int, error) {
	if c == nil || c.cat == nil || u == nil {
		return 0, &Error{Stage: StageMeasure, Code: ErrInvalidRequest, Message: "no unit, or a compiler that holds no catalog: make one with Load, LoadWith, New or Watch"}
	}
	m := &meter{c: c, tokenizer: c.policy.Tokenizer, bodies: map[string]string{}}
	return m.count(u)
}

// Catalog returns the catalog the compiler was built over. A nil or zero
// *Compiler holds none: its accessors return zero values (nil, "", a zero
// Policy or Reach), and Compile and BodyTokens an invalid_request error.
func (c *Compiler) Catalog() *ir.Catalog {
	if c == nil {
		return nil
	}
	return c.cat
}

// Summary returns u as a listing shows it, with the priority its compiles
// order it by: the host policy's for it, else the default. The skill's own
// (metadata.prolog-rlm) orders nothing, and a listing that showed it
// ("rlmc list", GET /v1/catalog) disagreed with the compile's result.
func (c *Compiler) Summary(u *ir.Unit) ir.Summary {
	if u == nil {
		return ir.Summary{}
	}
	s := u.Summary()
	if c != nil && c.facts != nil {
		s.Priority = c.facts.priorityOf(u)
	}
	return s
}

// Policy returns the host policy in effect, with defaults filled in.
func (c *Compiler) Policy() Policy {
	if c == nil {
		return Policy{}
	}
	return c.policy
}

// Reach counts the catalog's units by what the host policy and their
// status leave a compile: a catalog with units of which none is
// Selectable answers every task with no skill, which reads as a task that
// matched nothing.
type Reach struct {
	Units      int // every unit, whatever its status
	Selectable int // valid, not shadowed, not denied
	Invalid    int
	Denied     int // valid and not shadowed, but denied by the host policy
	// DeniedAll says the policy denies every unit's name, whatever
	// its status (a deny list copied from another project).
	DeniedAll bool
}

// Reach returns what c's catalog leaves its compiles.
func (c *Compiler) Reach() Reach {
	if c == nil || c.cat == nil {
		return Reach{}
	}
	units := c.cat.Units
	r := Reach{Units: len(units), DeniedAll: len(units) > 0}
	for _, u := range units {
		denied := c.denied[u.Name]
		r.DeniedAll = r.DeniedAll && denied
		switch {
		case u.Status == ir.StatusInvalid:
			r.Invalid++
		case u.Status != ir.StatusOK:
			// Shadowed: its namesake is counted.
		case denied:
			r.Denied++
		default:
			r.Selectable++
		}
	}
	return r
}

// CatalogFingerprint identifies everything in the catalog a decision can
// read; see docs/how-a-compile-decides.md ("Output") for what it covers.
func (c *Compiler) CatalogFingerprint() string {
	if c == nil {
		return ""
	}
	return c.catalogFP
}

// PolicyFingerprint identifies the host policy c decides under (its
// roots aside): with CatalogFingerprint, what a compile's answer depends
// on besides the request.
func (c *Compiler) PolicyFingerprint() string {
	if c == nil {
		return ""
	}
	return c.policyFP
}

// Equivalent reports whether o answers every request as c does: the same
// catalog and policy fingerprints, and each unit in the same file (which
// a reference to a skill names, and the fingerprint leaves out). A host
// that keeps what it compiled keeps it across a reload that changed
// nothing a compile reads, such as a log written under a root.
func (c *Compiler) Equivalent(o *Compiler) bool {
	if c == nil || o == nil || c.cat == nil || o.cat == nil {
		return c.Catalog() == nil && o.Catalog() == nil // two compilers of no catalog
	}
	if c.catalogFP != o.catalogFP || c.policyFP != o.policyFP {
		return false
	}
	return slices.EqualFunc(c.cat.Units, o.cat.Units, func(a, b *ir.Unit) bool { return a.Name == b.Name && a.File == b.File })
}

// Diagnostics returns the catalog's and the policy's diagnostics.
func (c *Compiler) Diagnostics() ir.Diagnostics {
	if c == nil {
		return nil
	}
	return c.diags
}

// firstError returns the first error diagnostic of u's SKILL.md or
// folder, in the catalog's order.
func (c *Compiler) firstError(u *ir.Unit) (ir.Diagnostic, bool) {
	dir := path.Dir(u.Path) + "/"
	for _, d := range c.diags {
		if d.Severity == ir.SeverityError && d.Root == u.Root && (d.Path == u.Path || dir != "./" && strings.HasPrefix(d.Path, dir)) {
			return d, true
		}
	}
	return ir.Diagnostic{}, false
}

// summarized is how many pieces of a unit's strongest evidence its
// lexical reason quotes.
const summarized = 3

// summarize renders a unit's strongest evidence for its lexical reason.
func summarize(ev []Evidence) string {
	if len(ev) > summarized {
		ev = ev[:summarized]
	}
	parts := make([]string, len(ev))
	for i, e := range ev {
		parts[i] = fmt.Sprintf("%s %q %+.2f", e.Field, e.Said(), e.Weight)
		if s := e.From(); s != "" {
			parts[i] += " (" + s + ")"
		}
	}
	return strings.Join(parts, "; ")
}

// countError is a count that failed in decide, reported as measure's, the
// stage that counted before counts waited for the policy's question.
func countError(err error) error {
	var ce *Error
	if errors.As(err, &ce) {
		if ce.Stage == "" {
			ce.Stage = StageMeasure
		}
		return ce
	}
	return &Error{Stage: StageMeasure, Code: ErrInvalidRequest, Message: err.Error()}
}

func milli(f float64) int { return int(math.Round(f * 1000)) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// milliUp is f x 1000 rounded up, f taken to six decimals: a confidence
// to three decimals, x 1000, reaches it exactly when the confidence
// reaches f.
func milliUp(f float64) int { return int(math.Ceil(math.Round(f*1e6) / 1000)) }

// UnknownNames returns an unknown_policy_unit warning for each of names
// (a request's select or deny, given as field) that no unit of c's
// catalog answers to: a deny that names nothing is most likely a typo
// for a unit that stays allowed, and every front-end says so alike. A
// name is warned about once however often it is given, and past
// maxUnknownNamed names one more warning counts the rest: a request is
// bounded in bytes, not in names, and must not make a warning per name.
func UnknownNames(c *Compiler, field string, names []string) ir.Diagnostics {
	return unknownNames(c, field, names, false)
}

// UnknownDenies is UnknownNames for a deny list: a name no unit answers
// to that spells a unit's name otherwise, or names its folder, denies
// that unit all the same (the warning says which), so that a typo of
// case fails closed.
func UnknownDenies(c *Compiler, field string, names []string) ir.Diagnostics {
	return unknownNames(c, field, names, true)
}

func unknownNames(c *Compiler, field string, names []string, deny bool) ir.Diagnostics {
	var out ir.Diagnostics
	unknown := UnknownUnits(c, names)
	if len(unknown) == 0 {
		return nil
	}
	namer := c.names()
	for i, n := range unknown {
		if i == maxUnknownNamed {
			out.Add(ir.Diagnostic{Path: field, Code: ir.CodeUnknownPolicyUnit, Severity: ir.SeverityWarning,
				Message: fmt.Sprintf("%s names %d more units that are not in the catalog", field, len(unknown)-i)})
			break
		}
		hint := namer.hint(n)
		if deny {
			if h := c.spelledHint(n); h != "" {
				hint = h
			}
		}
		out.Add(ir.Diagnostic{Path: field, Code: ir.CodeUnknownPolicyUnit, Severity: ir.SeverityWarning,
			Message: fmt.Sprintf("%s names unit %s, which is not in the catalog%s", field, quoteName(n), hint)})
	}
	return out
}

// quoteName quotes at most maxQuotedName bytes of a name a request gave,
// saying how long a longer one is: a unit's name is at most 64
// characters, and a request may give names of megabytes.
func quoteName(n string) string {
	if c, cut := ir.Cut(n, maxQuotedName); cut {
		return fmt.Sprintf("%s... (%d bytes)", ir.Quote(c), len(n))
	}
	return ir.Quote(n)
}

const maxQuotedName = 128

// maxUnknownNamed is how many names not in the catalog UnknownNames
// warns about one by one.
const maxUnknownNamed = 20

// UnknownUnits returns those of names no unit of c's catalog answers to
// (names are exact), each once, in the order first given.
func UnknownUnits(c *Compiler, names []string) []string {
	if c.Catalog() == nil {
		return nil // no catalog to tell them by
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if _, ok := c.Catalog().Lookup(n); !ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
