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
	"maps"
	"math"
	"slices"
	"strings"
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

// pipeline is the compile, one named step after another.
var pipeline = []struct {
	name Stage
	run  func(*compilation) error
}{
	{StageAnalyze, (*compilation).analyze},
	{StageRetrieve, (*compilation).retrieve},
	{StageMeasure, (*compilation).measure},
	{StageDecide, (*compilation).decide},
	{StageRender, (*compilation).render},
	{StageFingerprint, (*compilation).fingerprint},
}

// Stages returns the compile stage names in order.
func Stages() []Stage {
	out := make([]Stage, len(pipeline))
	for i, s := range pipeline {
		out[i] = s.name
	}
	return out
}

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
	diags     ir.Diagnostics
	denied    map[string]bool
	pos       map[*ir.Unit]int // position in cat.Units
	rows      []unitRow        // what a rejected entry takes from each unit, by position
	// cache is the catalog cache LoadWith used (nil: none), and
	// storedCounts the token counts it held then: StoreCache writes back
	// the counts made since.
	cache        *catcache.Cache
	cacheKey     catcache.Key
	storedCounts map[string]int
}

// New prepares a compiler over cat with the host policy p. It fails only if
// the embedded Prolog policy does not load.
func New(cat *ir.Catalog, p Policy) (*Compiler, error) {
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
	c := &Compiler{cat: cat, policy: p, denied: map[string]bool{}, pos: make(map[*ir.Unit]int, len(cat.Units))}
	for i, u := range cat.Units {
		c.pos[u] = i
	}
	c.rows = newRows(cat)
	if c.policy.Budget == 0 {
		c.policy.Budget = DefaultBudget
	}
	if c.policy.Tokenizer == "" {
		c.policy.Tokenizer = DefaultTokenizer
	}
	if c.policy.Ambiguity == "" {
		c.policy.Ambiguity = AmbiguityAsk
	}
	for _, n := range p.Deny {
		c.denied[n] = true
	}
	c.index = ix
	if c.index == nil {
		c.index = retrieval.Build(cat, pl)
	}
	if pl.Now() {
		return nil, canceled("", pl.Err())
	}
	c.facts = newFacts(cat, c.policy)
	engine, err := policy.Engine(c.facts)
	if err != nil {
		return nil, &Error{Stage: StageDecide, Code: ErrPolicy, Message: err.Error()}
	}
	c.engine = engine
	c.catalogFP = fp
	if fp == "" {
		c.catalogFP = catalogFingerprint(cat)
	}
	c.diags = append(ir.Diagnostics{}, cat.Diagnostics...)
	c.diags = append(c.diags, retrieval.Diagnostics(cat, pl)...)
	if pl.Now() {
		return nil, canceled("", pl.Err())
	}
	for _, n := range c.policy.names() {
		if _, ok := cat.Lookup(n); !ok {
			c.diags.Add(ir.Diagnostic{Path: "policy", Code: ir.CodeUnknownPolicyUnit, Severity: ir.SeverityWarning, Message: fmt.Sprintf("host policy names unit %q, which is not in the catalog", n)})
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
			return nil, err
		}
		return newCompilerIndex(ctx, cat, p, nil, "", policy)
	}
	cat, ix, fp, _, err := cache.LoadDerived(ctx, r, key, catalogFingerprint)
	if err != nil {
		return nil, err
	}
	if ix == nil {
		return nil, canceled("", ctx.Err())
	}
	c, err := newCompilerIndex(ctx, cat, p, ix, fp, policy)
	if err != nil {
		return nil, err
	}
	c.cache, c.cacheKey, c.storedCounts = cache, cache.KeyOf(r, key), cache.Counts()
	c.tokens.seed(c.storedCounts)
	return c, nil
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
	if c.cache != nil {
		c.cache.StoreCounts(c.storedCounts, c.tokens.snapshot())
	}
}

// Catalog returns the catalog the compiler was built over.
func (c *Compiler) Catalog() *ir.Catalog { return c.cat }

// Policy returns the host policy in effect, with defaults filled in.
func (c *Compiler) Policy() Policy { return c.policy }

// CatalogFingerprint identifies everything in the catalog a decision can
// read; see docs/how-a-compile-decides.md ("Output") for what it covers.
func (c *Compiler) CatalogFingerprint() string { return c.catalogFP }

// Diagnostics returns the catalog's and the policy's diagnostics.
func (c *Compiler) Diagnostics() ir.Diagnostics { return c.diags }

// compilation is the state of one Compile call as it moves through the
// pipeline.
type compilation struct {
	ctx context.Context
	c   *Compiler
	req Request

	budget    int
	tokenizer string
	explicit  map[string]bool
	mandatory map[string]bool
	denied    map[string]bool

	pulse *pulse.Pulse // stops long loops when ctx is done
	// confidences keeps the confidences (x 1000) the policy asked for.
	confidences map[string]int
	q           *retrieval.Query
	problem     *retrieval.Problem        // what the policy judges
	policyReq   *rules.Request            // the request facts the policy reads
	judged      map[string]rules.Decision // eligible/3's rejections, by unit
	cands       []rules.Candidate         // problem's candidates, as the policy reads them
	// special holds, by catalog position, the reasons of the units whose
	// reasons are not their standing (reasonsAt): those retrieval's Judge
	// or the policy rejected, and nil for the candidates and the selected
	// units, which are not rejected. Every other unit's reasons come from
	// the catalog's table and its score, so a compile keeps nothing per
	// unit. Rule 1's reasons are the same for most units of a large
	// catalog, so those share one slice (see goReasons): a Result is read,
	// not changed, and a slice per unit would cost a Reason each.
	special map[int][]Reason
	bodies  map[string]string
	tokens  map[string]int
	// uncounted holds the units measure read and verified but did not
	// count: a count needs the tokenizer's vocabulary, tens of
	// milliseconds to load, so it waits until the policy asks (rule 12,
	// packing), which a compile that selects nothing may never do.
	uncounted map[string]*ir.Unit
	countErr  error // the first count that failed, reported by decide

	// references holds the selected units rule 12 admitted rendered as
	// references, their bodies not fitting; refTokens counts each unit's
	// reference, as the policy asked.
	references map[string]bool
	refTokens  map[string]int

	selected []*ir.Unit
	units    []renderedUnit // the prompt's, as render built it
	res      *Result
}

// Compile decides which skills enter the planner context for req. A
// compile that cannot honor an explicit selection or a mandatory unit
// returns an *Error; so does a task longer than MaxTaskBytes
// (ErrInvalidRequest) and a cancelled context (ErrCanceled, which unwraps
// to ctx.Err(), so errors.Is(err, context.DeadlineExceeded) holds). The
// context is checked within every stage, not only between them.
func (c *Compiler) Compile(ctx context.Context, req Request) (*Result, error) {
	run := &compilation{
		ctx: ctx, c: c, req: req, pulse: pulse.New(ctx),
		explicit: map[string]bool{}, mandatory: map[string]bool{}, denied: map[string]bool{},
		bodies: map[string]string{}, tokens: map[string]int{},
		// The result owns its diagnostics: a host may change a result.
		res: &Result{Schema: Schema, Selected: []Selected{}, Rejected: []Rejected{}, Unlisted: map[ReasonCode]int{}, Diagnostics: slices.Clone(c.diags)},
	}
	for _, s := range pipeline {
		if err := ctx.Err(); err != nil {
			return nil, canceled(s.name, err)
		}
		err := s.run(run)
		if stopped := run.pulse.Err(); stopped != nil {
			// The stage stopped short; whatever it returned is partial.
			return nil, canceled(s.name, stopped)
		}
		if err != nil {
			var ce *Error
			if errors.As(err, &ce) {
				if ce.Stage == "" {
					ce.Stage = s.name
				}
				if ce.Code == ErrBodyChanged {
					// The catalog no longer matches the disk in a way
					// its stamps did not show: the next start must not
					// load it from the cache again.
					c.cache.Drop(c.cacheKey)
				}
				return nil, ce
			}
			return nil, &Error{Stage: s.name, Code: ErrInvalidRequest, Message: err.Error()}
		}
	}
	return run.res, nil
}

// canceled is the error of a compile whose context ended during stage.
func canceled(stage Stage, err error) *Error {
	return &Error{Stage: stage, Code: ErrCanceled, Message: err.Error(), cause: err}
}

func (r *compilation) event(e Event) { r.res.Events = append(r.res.Events, e) }

// analyze checks the host input and reads the task.
func (r *compilation) analyze() error {
	p := r.c.policy
	r.budget, r.tokenizer = p.Budget, p.Tokenizer
	if len(r.req.Task) > MaxTaskBytes {
		return &Error{Code: ErrInvalidRequest, Message: fmt.Sprintf("task is %d bytes; the limit is %d", len(r.req.Task), MaxTaskBytes)}
	}
	if r.req.Budget < 0 {
		return &Error{Code: ErrInvalidRequest, Message: "budget must be positive"}
	}
	if r.req.Budget > 0 {
		r.budget = r.req.Budget
	}
	if r.req.Tokenizer != "" {
		r.tokenizer = r.req.Tokenizer
	}
	if _, err := codecFor(r.tokenizer); err != nil {
		return &Error{Code: ErrInvalidRequest, Message: err.Error()}
	}
	r.res.Budget = Budget{Limit: r.budget, Tokenizer: r.tokenizer}
	for _, n := range p.Mandatory {
		if _, ok := r.c.cat.Lookup(n); !ok {
			return &Error{Code: ErrUnknownUnit, Unit: n, Message: fmt.Sprintf("mandatory unit %q is not in the catalog", n)}
		}
		r.mandatory[n] = true
	}
	for _, n := range r.req.Select {
		if _, ok := r.c.cat.Lookup(n); !ok {
			return &Error{Code: ErrUnknownUnit, Unit: n, Message: fmt.Sprintf("selected unit %q is not in the catalog", n)}
		}
		r.explicit[n] = true
	}
	for n := range r.c.denied {
		r.denied[n] = true
	}
	for _, n := range r.req.Deny {
		r.denied[n] = true
	}
	r.q = r.c.index.Analyze(r.req.Task, r.pulse)
	for _, n := range r.q.Negations() {
		r.event(Event{Stage: StageAnalyze, Kind: EventNegation, Unit: n.Unit, Detail: n.Said})
	}
	for _, v := range r.q.Quoted() {
		r.event(Event{Stage: StageAnalyze, Kind: EventQuotedValue, Detail: v})
	}
	return nil
}

// retrieve states the problem the policy judges: the candidates, their
// evidence and pair facts, and every other unit's reason. Eligibility
// (rules 2-6) is the policy's: retrieval asks it through judge.
func (r *compilation) retrieve() error {
	r.policyReq = r.request()
	pr, err := r.c.index.Retrieve(r.ctx, r.q, retrieval.Request{
		Mandatory: slices.Collect(maps.Keys(r.mandatory)),
		Explicit:  slices.Collect(maps.Keys(r.explicit)),
		Denied:    r.denied,
		Wraps:     r.c.facts.wraps,
	}, judge{r}, r.pulse)
	if err != nil {
		if ctxErr := r.ctx.Err(); ctxErr != nil {
			return canceled("", ctxErr)
		}
		return err
	}
	if r.pulse.Err() != nil {
		return nil // Compile reports the context's error
	}
	r.problem = pr
	for _, j := range pr.Ineligible {
		reason := r.judgedReason(j.Verdict)
		r.event(Event{Stage: StageRetrieve, Kind: EventRejected, Unit: j.Name, Code: reason.Code, Detail: reason.Detail, Score: round3(j.Score), Evidence: j.Evidence})
	}
	r.cands = make([]rules.Candidate, len(pr.Candidates))
	for i, c := range pr.Candidates {
		r.cands[i] = rules.Candidate{Name: c.Name, Origin: rules.Origin(c.Origin), Score: milli(c.Score)}
		if c.Origin == retrieval.OriginLexical {
			r.event(Event{Stage: StageRetrieve, Kind: EventCandidate, Unit: c.Name, Score: round3(c.Score), Evidence: pr.Evidence[c.Name]})
		}
	}
	r.res.Ranking = pr.Ranking
	// Every other unit's reasons are its standing, read when the result
	// is assembled (buildRejected).
	for _, i := range pr.CandidatePositions() {
		r.setReasons(i, nil)
	}
	for i, x := range pr.Judged() {
		r.setReasons(i, r.exclusion(i, x))
	}
	return nil
}

// judge asks the policy's eligible/3 (rules 2-6) for retrieval.
type judge struct{ r *compilation }

func (j judge) Ineligible(ctx context.Context, cands []retrieval.Candidate) ([]retrieval.Verdict, error) {
	in := make([]rules.Candidate, len(cands))
	for i, c := range cands {
		in[i] = rules.Candidate{Name: c.Name, Origin: rules.Origin(c.Origin), Score: milli(c.Score)}
	}
	ds, err := j.r.c.engine.Ineligible(ctx, j.r.policyReq, in)
	if err != nil {
		return nil, j.r.policyError(err)
	}
	out := make([]retrieval.Verdict, len(ds))
	for i, d := range ds {
		// Retrieval needs only the name and code; the result needs the
		// whole decision (its rule and facts), kept here.
		if j.r.judged == nil {
			j.r.judged = map[string]rules.Decision{}
		}
		j.r.judged[d.Name] = d
		out[i] = retrieval.Verdict{Name: d.Name, Code: retrieval.Code(d.Reason)}
	}
	return out, nil
}

// request builds the request facts the policy reads; decide adds the
// candidates and their pair facts.
func (r *compilation) request() *rules.Request {
	negs := r.q.Negations()
	req := &rules.Request{
		Budget:   r.budget,
		Explicit: r.explicit, Mandatory: r.mandatory, Denied: r.denied,
		Negated:   make(map[string]bool, len(negs)),
		Ambiguity: string(r.c.policy.Ambiguity), Threshold: milli(Threshold), TieRatio: TieRatio, SupportFloor: milli(SupportFloor),
		MarginRatio: MarginRatio, MinBreadth: MinBreadth,
		Tokens: r.tokensOf, ReferenceTokens: r.referenceTokensOf,
		MinConfidence: milliUp(r.c.policy.MinConfidence), IntentConfidence: milliUp(IntentConfidence),
	}
	for _, n := range negs {
		req.Negated[n.Unit] = true
	}
	return req
}

// policyError reports a failed policy run, as a cancellation when the
// context ended it.
func (r *compilation) policyError(err error) error {
	if ctxErr := r.ctx.Err(); ctxErr != nil {
		return canceled("", ctxErr)
	}
	return &Error{Code: ErrPolicy, Message: err.Error()}
}

// exclusion is the reason of the unit at catalog position i, which
// retrieval kept out of the candidates for x: the policy's when it judged
// the unit, else retrieval's own (goReason).
func (r *compilation) exclusion(i int, x retrieval.Exclusion) []Reason {
	u := r.c.cat.Units[i]
	if x.Judged {
		return []Reason{r.judgedReason(retrieval.Verdict{Name: u.Name, Code: x.Code})}
	}
	return goReasons(x, u)
}

// rejectedFor says whether reasons, a unit's entry of rejected, is a
// rejection for code.
func rejectedFor(reasons []Reason, code ReasonCode) bool {
	return len(reasons) > 0 && reasons[0].Code == code
}

// judgedReason is the reason of a unit the policy's eligible/3 rejected:
// the decision judge kept, with its rule and facts.
func (r *compilation) judgedReason(v retrieval.Verdict) Reason {
	d, ok := r.judged[v.Name]
	if !ok {
		// Unreached: retrieval reports only what judge returned.
		d = rules.Decision{Name: v.Name, Reason: ReasonCode(v.Code)}
	}
	rs := r.reason(d)
	if said := r.q.Negated(v.Name); rs.Code == ReasonNegated && said != "" {
		// The policy's detail is only that the task asked; say how.
		rs.Detail = fmt.Sprintf("task says %q", said)
	}
	return rs
}

// scoreAt returns the evidence score of the unit at catalog position i.
func (r *compilation) scoreAt(i int) float64 { return r.problem.ScoreAt(i) }

// score returns a unit's evidence score in this compile.
func (r *compilation) score(name string) float64 { return r.problem.Score(name) }

// measure readies the token counts of every candidate and every unit its
// closure could pull in: a count the catalog's cache holds is taken from
// it; any other unit's body is read and verified against its digest now
// (so a changed body fails here, as before), and counted when the policy
// asks for it (tokensOf).
func (r *compilation) measure() error {
	need := map[string]bool{}
	for _, c := range r.cands {
		need[c.Name] = true
		for _, d := range r.c.facts.Closure(c.Name).Deps {
			need[d] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(need)) {
		if err := r.ctx.Err(); err != nil {
			return canceled("", err) // reading bodies takes a while
		}
		u, ok := r.c.cat.Lookup(n)
		if !ok || u.Status != ir.StatusOK {
			continue // the policy rejects it without asking for tokens
		}
		if n, ok := r.c.tokens.get(r.tokenKey(u)); ok {
			r.tokens[u.Name] = n
			continue
		}
		if _, err := r.body(u); err != nil {
			return err
		}
		if r.uncounted == nil {
			r.uncounted = map[string]*ir.Unit{}
		}
		r.uncounted[u.Name] = u
	}
	return nil
}

// tokensOf answers the policy's tokens/3 for one unit: its count, made
// now if measure left it uncounted, and 0 for a unit measure skipped. A
// failed count is kept for decide to report, as measure's.
func (r *compilation) tokensOf(name string) int {
	if n, ok := r.tokens[name]; ok {
		return n
	}
	u, ok := r.uncounted[name]
	if !ok {
		return 0
	}
	delete(r.uncounted, name)
	n, err := r.c.countTokens(r, u)
	if err != nil {
		if r.countErr == nil {
			r.countErr = err
		}
		return 0
	}
	r.tokens[name] = n
	return n
}

// referenceTokensOf answers the policy's reference_tokens/3 for one unit:
// the tokens of its reference (referenceText), counted once per compile
// with the path of its SKILL.md within its root, so that where a catalog
// lies on disk changes no decision (the prompt names the whole path, a few
// tokens more). A failed count is kept for decide to report, as
// tokensOf's.
func (r *compilation) referenceTokensOf(name string) int {
	if n, ok := r.refTokens[name]; ok {
		return n
	}
	u, ok := r.c.cat.Lookup(name)
	if !ok || u.Status != ir.StatusOK {
		return 0
	}
	n, err := CountTokens(r.tokenizer, referenceText(u, u.Path))
	if err != nil {
		if r.countErr == nil {
			r.countErr = err
		}
		return 0
	}
	if r.refTokens == nil {
		r.refTokens = map[string]int{}
	}
	r.refTokens[name] = n
	return n
}

// tokenKey keys a unit's count in the catalog's token cache.
func (r *compilation) tokenKey(u *ir.Unit) string { return r.tokenizer + ":" + u.SHA256 }

func (c *Compiler) countTokens(r *compilation, u *ir.Unit) (int, error) {
	key := r.tokenKey(u)
	if n, ok := c.tokens.get(key); ok {
		return n, nil
	}
	body, err := r.body(u)
	if err != nil {
		return 0, err
	}
	if testHookCount != nil {
		testHookCount(u.Name)
	}
	n, err := CountTokens(r.tokenizer, body)
	if err != nil {
		return 0, err
	}
	c.tokens.put(key, n)
	return n, nil
}

// testHookCount, when a test sets it, sees every body counted.
var testHookCount func(name string)

func (r *compilation) body(u *ir.Unit) (string, error) {
	if b, ok := r.bodies[u.Name]; ok {
		return b, nil
	}
	b, err := loader.ReadBody(u)
	if err != nil {
		return "", &Error{Code: ErrBodyChanged, Unit: u.Name, Message: err.Error()}
	}
	r.bodies[u.Name] = b
	return b, nil
}

// decide asks the Prolog policy and fails the compile when a host selection
// cannot be honored.
func (r *compilation) decide() error {
	req := r.policyReq
	req.Candidates = r.cands
	req.Redundant, req.SameObject, req.Breadth = r.problem.Redundant, r.problem.SameObject, r.problem.Breadth
	req.OwnWords = r.problem.OwnWords
	req.Apart = make(map[[2]string]int, len(r.problem.Apart))
	for pair, w := range r.problem.Apart {
		req.Apart[pair] = milli(w)
	}
	req.OwnPart = make(map[[2]string]int, len(r.problem.OwnPart))
	for pair, w := range r.problem.OwnPart {
		req.OwnPart[pair] = milli(w)
	}
	req.Withdrawn = milli(r.problem.Withdrawn)
	req.Judged = true // retrieve asked eligible/3 about every lexical candidate
	req.Confidence, req.ExplainsMore = r.confidenceOf, r.explainsMore
	decisions, err := r.c.engine.Decide(r.ctx, req)
	if err != nil {
		return r.policyError(err)
	}
	if r.countErr != nil {
		return countError(r.countErr)
	}
	reasons := map[string][]Reason{}
	var order []string
	for _, d := range decisions {
		if d.Selected {
			if _, seen := reasons[d.Name]; !seen {
				order = append(order, d.Name)
			}
			reasons[d.Name] = append(reasons[d.Name], r.reason(d))
			continue
		}
		if r.explicit[d.Name] || r.mandatory[d.Name] {
			code, what := ErrSelectionRejected, "selected"
			if r.mandatory[d.Name] {
				code, what = ErrMandatoryRejected, "mandatory"
			}
			reason := r.reason(d)
			return &Error{Code: code, Unit: d.Name, Reason: d.Reason,
				Message: fmt.Sprintf("%s unit %q cannot be honored: %s", what, d.Name, describe(reason))}
		}
		u, _ := r.c.cat.Lookup(d.Name)
		reason := r.reason(d)
		r.setReasons(r.c.pos[u], []Reason{reason})
		r.event(Event{Stage: StageDecide, Kind: EventRejected, Unit: d.Name, Code: d.Reason, Detail: reason.Detail})
	}
	for _, d := range decisions {
		if d.Selected && d.Facts.Reference {
			if r.references == nil {
				r.references = map[string]bool{}
			}
			r.references[d.Name] = true
		}
	}
	for _, n := range order {
		u, _ := r.c.cat.Lookup(n)
		r.setReasons(r.c.pos[u], nil) // a dependency may also have been scored out
		r.selected = append(r.selected, u)
		tokens, rendering := r.tokensOf(n), RenderingInline
		if r.references[n] {
			tokens, rendering = r.referenceTokensOf(n), RenderingReference
		}
		r.res.Selected = append(r.res.Selected, Selected{
			Name: u.Name, Root: u.Root, Path: u.Path, Tokens: tokens, Rendering: rendering,
			Priority: r.c.facts.priority[n], Score: round3(r.score(n)), Confidence: r.confidence(n), Reasons: reasons[n],
		})
		r.res.Budget.Used += tokens
		if r.countErr != nil {
			return countError(r.countErr)
		}
		r.event(Event{Stage: StageDecide, Kind: EventSelected, Unit: n, Code: reasons[n][0].Code, Detail: reasons[n][0].Detail})
		if said := r.q.Negated(n); said != "" {
			// Only a host decision or its closure can select a negated
			// unit (rule 5, rule 6): say so, the task asked otherwise.
			r.event(Event{Stage: StageDecide, Kind: EventNegationOverridden, Unit: n, Code: reasons[n][0].Code, Detail: said})
		}
	}
	r.explainWeak()
	near := r.nearMisses()
	evidence := r.evidence(near)
	r.attachEvidence(evidence)
	r.res.Rejected, r.res.Unlisted = r.buildRejected(evidence, near)
	r.res.Decision = DecisionNoRoute
	if len(r.selected) > 0 {
		r.res.Decision = DecisionRoute
	}
	for _, d := range decisions {
		if d.Reason == ReasonAmbiguous && r.c.policy.Ambiguity == AmbiguityAsk {
			r.res.Decision = DecisionAmbiguous
			r.res.Ambiguous = append(r.res.Ambiguous, d.Name)
		}
	}
	return nil
}

// explainWeak gives the best-ranked units retrieval kept from the policy
// (below the candidate floor, or outside the best CandidateCap) their
// evidence in the explanation: a newcomer asks why a unit with some
// evidence lost, and the answer is what the task said for it. Only the
// Ranking's few are explained, so a large catalog costs no more.
func (r *compilation) explainWeak() {
	explained := map[string]bool{}
	for _, e := range r.res.Events {
		if e.Evidence != nil {
			explained[e.Unit] = true
		}
	}
	for _, rk := range r.res.Ranking {
		u, ok := r.c.cat.Lookup(rk.Name)
		if !ok || explained[rk.Name] || rk.Score == 0 || !rejectedFor(r.reasonsAt(r.c.pos[u]), ReasonBelowThreshold) {
			continue
		}
		if ev := r.problem.EvidenceOf(rk.Name); ev != nil {
			r.event(Event{Stage: StageRetrieve, Kind: EventRejected, Unit: rk.Name, Code: ReasonBelowThreshold, Score: round3(rk.Score), Evidence: ev})
		}
	}
}

// evidence is the evidence the compile computed, by unit name: the
// candidates', that of the units the explanation shows (judged
// ineligible among the best, or best-ranked below the floor), and the
// near misses' (catalog positions), which the result lists.
func (r *compilation) evidence(near []int) map[string][]Evidence {
	evidence := make(map[string][]Evidence, len(r.problem.Evidence))
	// Weights to three decimals, like scores: the last bits of a float
	// sum are no contract.
	add := func(n string, ev []Evidence) {
		if len(ev) == 0 {
			return
		}
		out := make([]Evidence, len(ev))
		for i, e := range ev {
			out[i] = Evidence{Field: e.Field, Terms: e.Terms, Weight: round3(e.Weight)}
		}
		evidence[n] = out
	}
	for n, ev := range r.problem.Evidence {
		add(n, ev)
	}
	for _, e := range r.res.Events {
		if _, done := evidence[e.Unit]; !done {
			add(e.Unit, e.Evidence)
		}
	}
	for _, i := range near {
		if n := r.c.rows[i].name; evidence[n] == nil {
			add(n, r.problem.EvidenceOf(n))
		}
	}
	return evidence
}

// attachEvidence gives the selected units their evidence; buildRejected
// gives the rejected theirs. Only the unit that bears a name gets its
// evidence, never a shadowed namesake.
func (r *compilation) attachEvidence(evidence map[string][]Evidence) {
	for i := range r.res.Selected {
		s := &r.res.Selected[i]
		ev, ok := evidence[s.Name]
		if !ok {
			continue
		}
		if u, ok := r.c.cat.Lookup(s.Name); ok && u.Root == s.Root && u.Path == s.Path {
			s.Evidence = ev
		}
	}
}

// summarize renders a unit's strongest evidence for its lexical reason.
func summarize(ev []Evidence) string {
	if len(ev) > 3 {
		ev = ev[:3]
	}
	parts := make([]string, len(ev))
	for i, e := range ev {
		parts[i] = fmt.Sprintf("%s %q %+.2f", e.Field, strings.Join(e.Terms, " "), e.Weight)
		if e.Source != "" {
			parts[i] += " (" + e.Source + ")"
		}
	}
	return strings.Join(parts, "; ")
}

// render reads the selected bodies (verifying them against the catalog) and
// builds the prompt block.
func (r *compilation) render() error {
	units := make([]renderedUnit, 0, len(r.selected))
	for _, u := range r.selected {
		if r.references[u.Name] {
			units = append(units, renderedUnit{name: u.Name, ref: u})
			continue
		}
		body, err := r.body(u)
		if err != nil {
			return err
		}
		units = append(units, renderedUnit{name: u.Name, body: body})
	}
	r.res.Prompt = renderPrompt(units, referencePath)
	r.units = units
	return nil
}

func (r *compilation) fingerprint() error {
	// A reference names where its SKILL.md is on this machine, which is
	// no part of what the prompt is: the fingerprint reads the path
	// within its root.
	fp := r.res.Prompt
	if len(r.references) > 0 {
		fp = renderPrompt(r.units, func(u *ir.Unit) string { return u.Path })
	}
	r.res.Fingerprint = promptFingerprint(fp, r.selected)
	r.res.CatalogFingerprint = r.c.catalogFP
	return nil
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

// confidence returns the unit's confidence (retrieval.Problem.Confidence),
// or nil when it has no evidence.
func (r *compilation) confidence(name string) *float64 {
	if r.score(name) <= 0 {
		return nil
	}
	if m, ok := r.confidences[name]; ok {
		c := float64(m) / 1000 // the policy asked already; exact to three decimals
		return &c
	}
	c := r.problem.Confidence(name)
	return &c
}

// milliUp is f x 1000 rounded up, f taken to six decimals: a confidence
// to three decimals, x 1000, reaches it exactly when the confidence
// reaches f.
func milliUp(f float64) int { return int(math.Ceil(math.Round(f*1e6) / 1000)) }

// confidenceOf answers confidence/3: a lexical candidate's confidence x
// 1000. The policy asks again for the same unit, so the answer is kept.
func (r *compilation) confidenceOf(name string) (int, bool) {
	if c, ok := r.confidences[name]; ok {
		return c, true
	}
	if !slices.ContainsFunc(r.cands, func(c rules.Candidate) bool { return c.Name == name && c.Origin == rules.OriginLexical }) {
		return 0, false
	}
	if r.confidences == nil {
		r.confidences = map[string]int{}
	}
	c := milli(r.problem.Confidence(name))
	r.confidences[name] = c
	return c, true
}

// explainsMore answers explains_more/3 (rule 9): a fits the task at least
// TieExplained times as well as b (retrieval.Problem.ExplainsMore).
func (r *compilation) explainsMore(a, b string) bool {
	return r.problem.ExplainsMore(a, b, TieExplained)
}

// UnknownNames returns an unknown_policy_unit warning for each of names
// (a request's select or deny, given as field) that no unit of c's
// catalog answers to: a deny that names nothing is most likely a typo
// for a unit that stays allowed, and every front-end says so alike.
func UnknownNames(c *Compiler, field string, names []string) ir.Diagnostics {
	var out ir.Diagnostics
	for _, n := range UnknownUnits(c, names) {
		out.Add(ir.Diagnostic{Path: field, Code: ir.CodeUnknownPolicyUnit, Severity: ir.SeverityWarning,
			Message: fmt.Sprintf("%s names unit %s, which is not in the catalog", field, ir.Quote(n))})
	}
	return out
}

// UnknownUnits returns those of names no unit of c's catalog answers to
// (names are exact), in the order given.
func UnknownUnits(c *Compiler, names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := c.Catalog().Lookup(n); !ok {
			out = append(out, n)
		}
	}
	return out
}
