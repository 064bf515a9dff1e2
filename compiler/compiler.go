// Package compiler turns a task, trusted host input and a catalog into the
// skill block a planner receives, with an explanation of every decision and
// a stable fingerprint. It owns the compile and render stages; the decisions
// themselves are made by the Prolog policy in package rules.
package compiler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/rlmc-dev/rlmc/ir"
	"github.com/rlmc-dev/rlmc/loader"
	"github.com/rlmc-dev/rlmc/rules"
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
}

// MaxTaskBytes bounds Request.Task, in bytes: a longer task is an
// ErrInvalidRequest, never analyzed in part. Every pass over the task is
// linear in its length, so the bound is on memory and time, not a guard
// against blow-up: a task this long compiles in well under a second over a
// catalog of dozens of skills.
const MaxTaskBytes = 1 << 20

// Compiler holds a loaded catalog, its index, graph and policy engine. Build
// it once and call Compile many times; it is safe for concurrent use.
type Compiler struct {
	cat       *ir.Catalog
	policy    Policy
	index     *index
	facts     *facts
	engine    *rules.Engine
	tokens    tokenCache
	catalogFP string
	diags     ir.Diagnostics
	denied    map[string]bool
	pos       map[*ir.Unit]int // position in cat.Units
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
	pl := &pulse{ctx: ctx}
	c := &Compiler{cat: cat, policy: p, denied: map[string]bool{}, pos: make(map[*ir.Unit]int, len(cat.Units))}
	for i, u := range cat.Units {
		c.pos[u] = i
	}
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
	c.index = buildIndex(cat, pl)
	if pl.now() {
		return nil, canceled("", pl.err)
	}
	c.facts = newFacts(cat, c.policy)
	engine, err := rules.New(c.facts)
	if err != nil {
		return nil, &Error{Stage: StageDecide, Code: ErrPolicy, Message: err.Error()}
	}
	c.engine = engine
	c.catalogFP = catalogFingerprint(cat)
	c.diags = append(ir.Diagnostics{}, cat.Diagnostics...)
	c.diags = append(c.diags, contentless(cat, pl)...)
	c.diags = append(c.diags, aliasCollisions(cat)...)
	if pl.now() {
		return nil, canceled("", pl.err)
	}
	for _, n := range c.policy.names() {
		if _, ok := cat.Lookup(n); !ok {
			c.diags.Add(ir.Diagnostic{Path: "policy", Code: ir.CodeUnknownPolicyUnit, Severity: ir.SeverityWarning, Message: fmt.Sprintf("host policy names unit %q, which is not in the catalog", n)})
		}
	}
	c.diags.Sort()
	return c, nil
}

// contentless reports every alias and trigger made only of stop words: the
// index ignores them (see hasContent), and the author should know why they
// never match.
func contentless(cat *ir.Catalog, p *pulse) ir.Diagnostics {
	var out ir.Diagnostics
	for _, u := range cat.Units {
		if p.now() {
			return out
		}
		if u.Status != ir.StatusOK {
			continue
		}
		report := func(what, value string) {
			if !hasContent(value) {
				out.Add(ir.Diagnostic{Root: u.Root, Path: u.Path, Code: ir.CodeNoContentWord, Severity: ir.SeverityWarning,
					Message: fmt.Sprintf("%s %q has no content word, only stop words; it is ignored as evidence", what, value)})
			}
		}
		for _, a := range u.Aliases {
			report("alias", a)
		}
		for _, t := range u.Triggers {
			report(string(t.Kind)+" trigger", t.Value)
		}
	}
	return out
}

// aliasCollisions reports every alias that spells another unit's name: the
// index ignores it (see usableAliases), so that no unit takes over a name
// that is not its own.
func aliasCollisions(cat *ir.Catalog) ir.Diagnostics {
	var out ir.Diagnostics
	names := nameKeys(cat)
	for _, u := range cat.Units {
		if u.Status != ir.StatusOK {
			continue
		}
		for _, a := range u.Aliases {
			if owner, ok := names[strings.Join(Words(a), " ")]; ok && owner != u.Name {
				out.Add(ir.Diagnostic{Root: u.Root, Path: u.Path, Code: ir.CodeAliasCollision, Severity: ir.SeverityWarning,
					Message: fmt.Sprintf("alias %q is the name of unit %q; it is ignored", a, owner)})
			}
		}
	}
	return out
}

// Load is the usual way to build a compiler: load the roots, then New.
// Without opts.Roots it loads the policy's roots, else the default roots;
// a root named either way that is not a folder is a *loader.RootError.
func Load(ctx context.Context, opts loader.Options, p Policy) (*Compiler, error) {
	if len(opts.Roots) == 0 && len(p.Roots) > 0 {
		opts.Roots = p.Roots
	}
	opts.Exclude = append(opts.Exclude, p.Exclude...)
	if opts.Limits == (loader.Limits{}) {
		opts.Limits = loader.DefaultLimits
	}
	opts.Limits = p.Limits.apply(opts.Limits)
	cat, err := loader.Load(ctx, opts)
	if err != nil {
		return nil, err
	}
	return newCompiler(ctx, cat, p)
}

// Catalog returns the catalog the compiler was built over.
func (c *Compiler) Catalog() *ir.Catalog { return c.cat }

// Policy returns the host policy in effect, with defaults filled in.
func (c *Compiler) Policy() Policy { return c.policy }

// CatalogFingerprint identifies everything in the catalog a decision can
// read; see README.md for what it covers.
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

	pulse                 *pulse // stops long loops when ctx is done
	q                     *query
	negated               map[string]string // unit -> the words that negated it
	scores                []float64         // evidence by index position
	policyReq             *rules.Request    // the request facts the policy reads
	withdrawn             float64           // best score of a unit eligible/3 kept out
	withdrawnName         string            // the unit that scored it
	cands                 []rules.Candidate
	rejected              []Reason              // by catalog position; Code "" means not rejected
	evidence              map[string][]Evidence // of the candidates
	redundant, sameObject map[[2]string]bool
	breadth               map[string]int
	bodies                map[string]string
	tokens                map[string]int

	selected []*ir.Unit
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
		ctx: ctx, c: c, req: req, pulse: &pulse{ctx: ctx},
		explicit: map[string]bool{}, mandatory: map[string]bool{}, denied: map[string]bool{},
		rejected: make([]Reason, len(c.cat.Units)), bodies: map[string]string{}, tokens: map[string]int{},
		res: &Result{Schema: Schema, Selected: []Selected{}, Rejected: []Rejected{}, Diagnostics: c.diags},
	}
	for _, s := range pipeline {
		if err := ctx.Err(); err != nil {
			return nil, canceled(s.name, err)
		}
		err := s.run(run)
		if run.pulse.err != nil {
			// The stage stopped short; whatever it returned is partial.
			return nil, canceled(s.name, run.pulse.err)
		}
		if err != nil {
			var ce *Error
			if errors.As(err, &ce) {
				if ce.Stage == "" {
					ce.Stage = s.name
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
	r.q = r.c.index.analyze(r.req.Task, r.pulse)
	r.negated = r.c.index.negated(r.q)
	for _, n := range slices.Sorted(maps.Keys(r.negated)) {
		r.event(Event{Stage: StageAnalyze, Kind: EventNegation, Unit: n, Detail: r.negated[n]})
	}
	return nil
}

// retrieve scores the catalog and picks the candidates the policy judges;
// every other unit gets its reason here.
func (r *compilation) retrieve() error {
	ix := r.c.index
	var above []scored
	r.scores, above = ix.score(r.q)
	for _, n := range slices.Sorted(maps.Keys(r.mandatory)) {
		r.cands = append(r.cands, rules.Candidate{Name: n, Origin: rules.OriginMandatory, Score: milli(r.score(n))})
	}
	for _, n := range slices.Sorted(maps.Keys(r.explicit)) {
		if !r.mandatory[n] {
			r.cands = append(r.cands, rules.Candidate{Name: n, Origin: rules.OriginExplicit, Score: milli(r.score(n))})
		}
	}
	var lexical []scored
	for _, s := range above {
		u := ix.units[s.unit]
		if !r.mandatory[u.Name] && !r.explicit[u.Name] {
			lexical = append(lexical, s)
		}
	}
	r.policyReq = r.request()
	top, outside, err := r.eligibleTop(lexical)
	if err != nil {
		return err
	}
	for _, s := range top {
		r.cands = append(r.cands, rules.Candidate{Name: ix.units[s.unit].Name, Origin: rules.OriginLexical, Score: milli(s.score)})
	}
	for _, s := range outside {
		r.rejected[r.c.pos[ix.units[s.unit]]] = Reason{Code: ReasonBelowThreshold, Detail: outsideCap}
	}
	r.evidence = make(map[string][]Evidence, len(r.cands))
	r.redundant, r.sameObject = map[[2]string]bool{}, map[[2]string]bool{}
	for _, c := range r.cands {
		if id, ok := ix.ids[c.Name]; ok {
			r.evidence[c.Name] = ix.evidence(r.q, id)
		}
		if c.Origin == rules.OriginLexical {
			r.event(Event{Stage: StageRetrieve, Kind: EventCandidate, Unit: c.Name, Score: round3(r.score(c.Name)), Evidence: r.evidence[c.Name]})
		}
	}
	r.relate()
	r.res.Ranking = r.c.index.top(r.scores, rankingSize)
	// The policy judges the candidates; every other unit gets its standing.
	// Candidate positions are few: walk them sorted beside the catalog.
	var inCands []int
	for _, c := range r.cands {
		if u, ok := r.c.cat.Lookup(c.Name); ok {
			inCands = append(inCands, r.c.pos[u])
		}
	}
	slices.Sort(inCands)
	inCands = slices.Compact(inCands)
	for i, u := range r.c.cat.Units {
		if r.pulse.stop() {
			return nil // Compile reports the context's error
		}
		if len(inCands) > 0 && inCands[0] == i {
			inCands = inCands[1:]
			continue
		}
		if r.rejected[i].Code == "" {
			r.rejected[i] = r.standing(i, u)
		}
	}
	return nil
}

// eligibleTop returns the CandidateCap best of the lexical units that can be
// selected at all, and the eligible ones it leaves outside the cap. A unit
// that can never be selected in this request (negated, denied,
// explicit-user-only, failing closure: rules 2-6, asked of the policy
// itself) gets its reason here and takes no candidate's place; the best
// score among them is kept for rule 10, since taking a unit away must not
// manufacture a margin for a weaker one. Units are judged best first, in
// batches, so the usual compile asks once about the four best.
func (r *compilation) eligibleTop(lexical []scored) (top, outside []scored, err error) {
	ix := r.c.index
	batch, rest := ix.best(lexical, CandidateCap)
	sorted := false
	for len(batch) > 0 {
		if err := r.ctx.Err(); err != nil {
			return nil, nil, &Error{Code: ErrCanceled, Message: err.Error()}
		}
		cands := make([]rules.Candidate, len(batch))
		for i, s := range batch {
			cands[i] = rules.Candidate{Name: ix.units[s.unit].Name, Origin: rules.OriginLexical, Score: milli(s.score)}
		}
		verdicts, err := r.c.engine.Ineligible(r.ctx, r.policyReq, cands)
		if err != nil {
			return nil, nil, r.policyError(err)
		}
		out := make(map[string]rules.Decision, len(verdicts))
		for _, d := range verdicts {
			out[d.Name] = d
		}
		for _, s := range batch {
			u := ix.units[s.unit]
			d, bad := out[u.Name]
			switch {
			case bad:
				reason := r.reason(d)
				r.rejected[r.c.pos[u]] = reason
				e := Event{Stage: StageRetrieve, Kind: EventRejected, Unit: u.Name, Code: reason.Code, Detail: reason.Detail, Score: round3(s.score)}
				if !sorted {
					// Among the best four: explain what the task said for it.
					e.Evidence = ix.evidence(r.q, s.unit)
				}
				// A negated unit's score holds no evidence from the
				// words that negate it (analyze masks them), so it all
				// came from the rest of the task and counts as a rival.
				if s.score > r.withdrawn {
					r.withdrawn, r.withdrawnName = s.score, u.Name
				}
				r.event(e)
			case len(top) < CandidateCap:
				top = append(top, s)
			default:
				outside = append(outside, s)
			}
		}
		need := CandidateCap - len(top)
		if need == 0 || len(rest) == 0 {
			break
		}
		if !sorted {
			// Rare: some of the best were ineligible. Walk the rest in
			// order, in batches no smaller than ineligibleBatch so that a
			// catalog of many ineligible matches costs few policy calls.
			slices.SortFunc(rest, func(a, b scored) int {
				if ix.before(a, b) {
					return -1
				}
				return 1
			})
			sorted = true
		}
		n := min(max(need, ineligibleBatch), len(rest))
		batch, rest = rest[:n], rest[n:]
	}
	return top, append(outside, rest...), nil
}

// ineligibleBatch is how many units eligibleTop judges at once past the
// first four.
const ineligibleBatch = 32

// request builds the request facts the policy reads; decide adds the
// candidates and their pair facts.
func (r *compilation) request() *rules.Request {
	req := &rules.Request{
		Budget:   r.budget,
		Explicit: r.explicit, Mandatory: r.mandatory, Denied: r.denied,
		Negated:   make(map[string]bool, len(r.negated)),
		Ambiguity: string(r.c.policy.Ambiguity), Threshold: milli(Threshold), TieRatio: TieRatio, SupportFloor: milli(SupportFloor),
		Tokens: func(n string) int { return r.tokens[n] },
	}
	for n := range r.negated {
		req.Negated[n] = true
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

// relate computes the pair facts the policy's ambiguity and redundancy
// rules read: b is redundant beside a when little of b's evidence rests on
// task words a's evidence does not cover; a and b share an object when the
// task names an object both declare.
func (r *compilation) relate() {
	ix := r.c.index
	r.breadth = make(map[string]int, len(r.cands))
	for _, c := range r.cands {
		r.breadth[c.Name] = breadth(r.evidence[c.Name])
	}
	named := map[string][]string{} // candidate -> its objects the task names
	for _, c := range r.cands {
		if id, ok := ix.ids[c.Name]; ok {
			named[c.Name] = intersect(ix.unitObjects[id], r.q.objects)
		}
	}
	for _, a := range r.cands {
		for _, b := range r.cands {
			if a.Name == b.Name || b.Origin != rules.OriginLexical {
				continue
			}
			pair := [2]string{a.Name, b.Name}
			if residual(r.evidence[a.Name], r.evidence[b.Name]) < redundantShare*r.score(b.Name) {
				r.redundant[pair] = true
			}
			if shares(named[a.Name], set(named[b.Name])) {
				r.sameObject[pair] = true
			}
		}
	}
}

// standing is the reason a unit that is not a candidate stays out.
func (r *compilation) standing(i int, u *ir.Unit) Reason {
	switch {
	case u.Status == ir.StatusShadowed:
		return Reason{Code: ReasonShadowed, Detail: "by " + u.ShadowedBy}
	case u.Status == ir.StatusInvalid:
		return Reason{Code: ReasonInvalid, Detail: "see diagnostics for " + u.Path}
	case r.denied[u.Name]:
		return Reason{Code: ReasonDenied, Detail: "denied by the host"}
	case r.negated[u.Name] != "":
		return Reason{Code: ReasonNegated, Detail: fmt.Sprintf("task says %q", r.negated[u.Name])}
	}
	if r.scoreAt(i) != 0 {
		return Reason{Code: ReasonBelowThreshold, Detail: belowThreshold}
	}
	return Reason{Code: ReasonNoEvidence}
}

// scoreAt returns the evidence score of the unit at catalog position i.
func (r *compilation) scoreAt(i int) float64 {
	if id := r.c.index.byCatalog[i]; id >= 0 {
		return r.scores[id]
	}
	return 0
}

// score returns a unit's evidence score in this compile.
func (r *compilation) score(name string) float64 {
	if id, ok := r.c.index.ids[name]; ok {
		return r.scores[id]
	}
	return 0
}

// measure counts the tokens of every candidate and every unit its closure
// could pull in, reading bodies lazily and caching counts by content digest.
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
			return canceled("", err) // counting a body's tokens takes a while
		}
		u, ok := r.c.cat.Lookup(n)
		if !ok || u.Status != ir.StatusOK {
			continue // the policy rejects it without asking for tokens
		}
		n, err := r.c.countTokens(r, u)
		if err != nil {
			return err
		}
		r.tokens[u.Name] = n
	}
	return nil
}

func (c *Compiler) countTokens(r *compilation, u *ir.Unit) (int, error) {
	key := r.tokenizer + ":" + u.SHA256
	if n, ok := c.tokens.get(key); ok {
		return n, nil
	}
	body, err := r.body(u)
	if err != nil {
		return 0, err
	}
	n, err := CountTokens(r.tokenizer, body)
	if err != nil {
		return 0, err
	}
	c.tokens.put(key, n)
	return n, nil
}

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
	req.Redundant, req.SameObject, req.Breadth = r.redundant, r.sameObject, r.breadth
	req.Withdrawn = milli(r.withdrawn)
	req.Judged = true // retrieve asked eligible/3 about every lexical candidate
	decisions, err := r.c.engine.Decide(r.ctx, req)
	if err != nil {
		return r.policyError(err)
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
		r.rejected[r.c.pos[u]] = reason
		r.event(Event{Stage: StageDecide, Kind: EventRejected, Unit: d.Name, Code: d.Reason, Detail: reason.Detail})
	}
	for _, n := range order {
		u, _ := r.c.cat.Lookup(n)
		r.rejected[r.c.pos[u]] = Reason{} // a dependency may also have been scored out
		r.selected = append(r.selected, u)
		r.res.Selected = append(r.res.Selected, Selected{
			Name: u.Name, Root: u.Root, Path: u.Path, Tokens: r.tokens[n],
			Priority: r.c.facts.priority[n], Score: round3(r.score(n)), Reasons: reasons[n],
		})
		r.res.Budget.Used += r.tokens[n]
		r.event(Event{Stage: StageDecide, Kind: EventSelected, Unit: n, Code: reasons[n][0].Code, Detail: reasons[n][0].Detail})
		if said := r.negated[n]; said != "" {
			// Only a host decision or its closure can select a negated
			// unit (rule 5, rule 6): say so, the task asked otherwise.
			r.event(Event{Stage: StageDecide, Kind: EventNegationOverridden, Unit: n, Code: reasons[n][0].Code, Detail: said})
		}
	}
	r.res.Rejected = make([]Rejected, 0, len(r.rejected)-len(r.selected))
	for i, u := range r.c.cat.Units {
		if r.rejected[i].Code != "" {
			var score float64
			if u.Status != ir.StatusShadowed {
				score = r.scoreAt(i)
			}
			r.rejected[i] = goReason(r.rejected[i], score)
			rj := Rejected{Name: u.Name, Root: u.Root, Path: u.Path, Score: round3(score), Reasons: r.rejected[i : i+1 : i+1]}
			r.res.Rejected = append(r.res.Rejected, rj)
		}
	}
	r.explainWeak()
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

// explainWeak gives the best-ranked units Go kept from the policy (below
// the candidate floor, or outside the best CandidateCap) their evidence in
// the explanation: a newcomer asks why a unit with some evidence lost, and
// the answer is what the task said for it. Only the Ranking's few are
// explained, so a large catalog costs no more.
func (r *compilation) explainWeak() {
	explained := map[string]bool{}
	for _, e := range r.res.Events {
		if e.Evidence != nil {
			explained[e.Unit] = true
		}
	}
	for _, rk := range r.res.Ranking {
		u, ok := r.c.cat.Lookup(rk.Name)
		if !ok || explained[rk.Name] || rk.Score == 0 || r.rejected[r.c.pos[u]].Code != ReasonBelowThreshold {
			continue
		}
		if id, ok := r.c.index.ids[rk.Name]; ok {
			r.event(Event{Stage: StageRetrieve, Kind: EventRejected, Unit: rk.Name, Code: ReasonBelowThreshold, Score: round3(rk.Score), Evidence: r.c.index.evidence(r.q, id)})
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
		parts[i] = fmt.Sprintf("%s %q %+.2f", e.Field, e.Match, e.Score)
	}
	return strings.Join(parts, "; ")
}

// render reads the selected bodies (verifying them against the catalog) and
// builds the prompt block.
func (r *compilation) render() error {
	units := make([]renderedUnit, 0, len(r.selected))
	for _, u := range r.selected {
		body, err := r.body(u)
		if err != nil {
			return err
		}
		units = append(units, renderedUnit{name: u.Name, body: body})
	}
	r.res.Prompt = renderPrompt(units)
	return nil
}

func (r *compilation) fingerprint() error {
	r.res.Fingerprint = promptFingerprint(r.res.Prompt, r.selected)
	r.res.CatalogFingerprint = r.c.catalogFP
	return nil
}

func set(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

func milli(f float64) int { return int(math.Round(f * 1000)) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
