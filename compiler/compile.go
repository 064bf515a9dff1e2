package compiler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/pulse"
	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/internal/rules"
	"github.com/rlmc-dev/rlmc/ir"
)

// A compile is six stages, each a function from the values the earlier
// ones made to a value of its own:
//
//	analyze     Request                     -> *input      (host input checked, task read)
//	retrieve    *input                      -> *statement  (the problem the policy judges)
//	measure     *statement                  -> *meter      (bodies verified, tokens on demand)
//	decide      *statement, *meter          -> *verdict    (the policy's decisions)
//	render      *verdict, *meter            -> *rendered   (the prompt block)
//	fingerprint *verdict, *rendered         -> string
//
// and assemble turns them into the Result. What no stage owns alone is
// the compile's account of the catalog (the explanation's events and the
// reasons of the units a rule decided about), kept by compilation, which
// each stage adds to and assemble reads.

// stages lists the compile's stages in order.
var stages = []Stage{StageAnalyze, StageRetrieve, StageMeasure, StageDecide, StageRender, StageFingerprint}

// Stages returns the compile stage names in order.
func Stages() []Stage { return slices.Clone(stages) }

// input is analyze's value: the request, the budget and tokenizer in
// effect, the host's decisions checked against the catalog, and the task
// read once.
type input struct {
	req       Request
	budget    int
	tokenizer string
	explicit  map[string]bool // the request's selections
	// invoked is the unit the task invokes ("/name"), as invokedAs
	// writes it, when the host policy lets the task select
	// (Policy.Invocation) and the host did not select it too; "" for
	// none.
	invoked, invokedAs string
	mandatory          map[string]bool // the host policy's mandatory units
	denied             map[string]bool // the host policy's denials and the request's
	q                  *retrieval.Query
}

// statement is retrieve's value: the problem the policy judges, as
// retrieval stated it and as the policy reads it.
type statement struct {
	*input
	problem   *retrieval.Problem
	policyReq *rules.Request            // the request facts; decide adds the candidates' pair facts
	cands     []rules.Candidate         // problem's candidates, as the policy reads them
	judged    map[string]rules.Decision // eligible/3's rejections, by unit
	// plain says the request's facts are the host policy's alone: no
	// unit selected or denied by the request, none negated by the task.
	// A lexical candidate's eligibility then reads only the catalog and
	// the policy, and is kept (Compiler.eligibility).
	plain bool
	// confidences keeps the confidences (x 1000) the policy asked for,
	// so that the result reports the very numbers it compared.
	confidences map[string]int
	// said maps the task's stems to its own words (Query.Surface), found
	// at the first evidence shown (withWords).
	said map[string]string
}

// verdict is decide's value: the policy's decisions, and the selected
// units in the order they are rendered.
type verdict struct {
	*statement
	decisions  []rules.Decision
	selected   []*ir.Unit
	entries    []Selected      // the result's entry of each selected unit
	references map[string]bool // selected units rendered as references
	given      map[string]bool // selected units the conversation carries (Request.Carried)
}

// rendered is render's value: the prompt block and the units in it.
type rendered struct {
	prompt string
	units  []renderedUnit
	// inline holds the units whose bodies the prompt holds, as read and
	// checked against their digests by this compile.
	inline []*ir.Unit
}

// compilation is one Compile call: its context, and the account of the
// catalog the stages keep between them.
type compilation struct {
	ctx   context.Context
	c     *Compiler
	pulse *pulse.Pulse // stops long loops when ctx is done

	events []Event
	// special holds, by catalog position, the reasons of the units whose
	// reasons are not their standing (reasonsAt): those retrieval's Judge
	// or the policy rejected, and nil for the candidates and the selected
	// units, which are not rejected. Every other unit's reasons come from
	// the catalog's table and its score, so a compile keeps nothing per
	// unit. Rule 1's reasons are the same for most units of a large
	// catalog, so those share one slice (see goReasons): a Result is read,
	// not changed, and a slice per unit would cost a Reason each.
	special map[int][]Reason
}

// Compile decides which skills enter the planner context for req. A
// compile that cannot honor an explicit selection or a mandatory unit
// returns an *Error; so does a task longer than MaxTaskBytes
// (ErrInvalidRequest) and a cancelled context (ErrCanceled, which unwraps
// to ctx.Err(), so errors.Is(err, context.DeadlineExceeded) holds). The
// context is checked within every stage, not only between them.
func (c *Compiler) Compile(ctx context.Context, req Request) (*Result, error) {
	if c == nil || c.cat == nil {
		// A nil or zero Compiler: a host's mistake, said as an error
		// rather than a panic in a stage (or an unknown tokenizer "").
		return nil, &Error{Stage: StageAnalyze, Code: ErrInvalidRequest, Message: "the compiler holds no catalog: make one with Load, LoadWith, New or Watch"}
	}
	if ctx == nil {
		return nil, errNilContext(StageAnalyze)
	}
	key, memoizing := c.memo.keyOf(&req)
	if memoizing {
		if err := ctx.Err(); err != nil {
			return nil, canceled(StageAnalyze, err)
		}
		if res, ok := c.memo.answer(key); ok {
			return res, nil
		}
	}
	r := &compilation{ctx: ctx, c: c, pulse: pulse.New(ctx)}
	in, err := step(r, StageAnalyze, func() (*input, error) { return r.analyze(req) })
	if err != nil {
		return nil, err
	}
	st, err := step(r, StageRetrieve, func() (*statement, error) { return r.retrieve(in) })
	if err != nil {
		return nil, err
	}
	m, err := step(r, StageMeasure, func() (*meter, error) { return r.measure(st) })
	if err != nil {
		return nil, err
	}
	v, err := step(r, StageDecide, func() (*verdict, error) { return r.decide(st, m) })
	if err != nil {
		return nil, err
	}
	rd, err := step(r, StageRender, func() (*rendered, error) { return render(v, m) })
	if err != nil {
		return nil, err
	}
	fp, err := step(r, StageFingerprint, func() (string, error) { return fingerprint(v, rd), nil })
	if err != nil {
		return nil, err
	}
	res := r.assemble(v, rd, fp)
	if memoizing {
		c.memo.keep(key, &req, res, rd)
	}
	return res, nil
}

// step runs one stage: not at all when the context is done, and its value
// is dropped when the context ended during it (the stage stopped short,
// so what it returned is partial). A stage's error names the stage.
func step[T any](r *compilation, stage Stage, run func() (T, error)) (T, error) {
	var zero T
	if err := r.ctx.Err(); err != nil {
		return zero, canceled(stage, err)
	}
	v, err := run()
	if stopped := r.pulse.Err(); stopped != nil {
		return zero, canceled(stage, stopped)
	}
	if err == nil {
		return v, nil
	}
	var ce *Error
	if !errors.As(err, &ce) {
		return zero, &Error{Stage: stage, Code: ErrInvalidRequest, Message: err.Error()}
	}
	if ce.Stage == "" {
		ce.Stage = stage
	}
	if ce.Code == ErrBodyChanged {
		// The catalog no longer matches the disk in a way its stamps did
		// not show: the next start must not load it from the cache again.
		r.c.cache.Drop(r.c.cacheKey)
	}
	return zero, ce
}

// canceled is the error of a compile whose context ended during stage.
func canceled(stage Stage, err error) *Error {
	return &Error{Stage: stage, Code: ErrCanceled, Message: err.Error(), cause: err}
}

func (r *compilation) event(e Event) { r.events = append(r.events, e) }

// analyze checks the host input and reads the task.
func (r *compilation) analyze(req Request) (*input, error) {
	p := r.c.policy
	in := &input{req: req, budget: p.Budget, tokenizer: p.Tokenizer,
		explicit: map[string]bool{}, mandatory: map[string]bool{}, denied: map[string]bool{}}
	if len(req.Task) > MaxTaskBytes {
		return nil, &Error{Code: ErrInvalidRequest, Message: fmt.Sprintf("task is %d bytes; the limit is %d: send the instruction with less of what was pasted (compiler.ClipTask keeps a task's head and tail)", len(req.Task), MaxTaskBytes)}
	}
	if req.Budget < 0 {
		return nil, &Error{Code: ErrInvalidRequest, Message: "budget must be positive"}
	}
	if req.Budget > 0 {
		in.budget = req.Budget
	}
	if req.Tokenizer != "" {
		in.tokenizer = req.Tokenizer
	}
	if _, err := codecFor(in.tokenizer); err != nil {
		return nil, &Error{Code: ErrInvalidRequest, Message: err.Error()}
	}
	for _, n := range p.Mandatory {
		if _, ok := r.c.cat.Lookup(n); !ok {
			return nil, &Error{Code: ErrUnknownUnit, Unit: n, Message: fmt.Sprintf("mandatory unit %q is not in the catalog%s", n, r.c.names().hint(n))}
		}
		in.mandatory[n] = true
	}
	for _, n := range req.Select {
		if _, ok := r.c.cat.Lookup(n); !ok {
			return nil, &Error{Code: ErrUnknownUnit, Unit: n, Message: fmt.Sprintf("selected unit %q is not in the catalog%s", n, r.c.names().hint(n))}
		}
		in.explicit[n] = true
	}
	for n := range r.c.denied {
		in.denied[n] = true
	}
	for _, n := range req.Deny {
		for _, t := range r.c.denyTargets(n) {
			in.denied[t] = true
		}
	}
	in.q = r.c.index.AnalyzeWith(req.Task, retrieval.AnalyzeOptions{Commands: p.Invocation != InvocationHost}, r.pulse)
	for _, n := range in.q.Negations() {
		r.event(Event{Stage: StageAnalyze, Kind: EventNegation, Unit: n.Unit, Detail: n.Said})
	}
	for _, v := range in.q.Quoted() {
		r.event(Event{Stage: StageAnalyze, Kind: EventQuotedValue, Detail: v})
	}
	for _, v := range in.q.Refusals() {
		r.event(Event{Stage: StageAnalyze, Kind: EventRefusal, Detail: v})
	}
	if v, ok := in.q.Command(); ok {
		r.event(Event{Stage: StageAnalyze, Kind: EventInvocation, Unit: v.Unit, Detail: v.Said, Args: v.Args})
		if !in.explicit[v.Unit] {
			in.invoked, in.invokedAs = v.Unit, v.Said
		}
	}
	return in, nil
}

// retrieve states the problem the policy judges: the candidates, their
// evidence and pair facts, and every other unit's reason. Eligibility
// (rules 2-6) is the policy's: retrieval asks it through judge.
func (r *compilation) retrieve(in *input) (*statement, error) {
	st := &statement{input: in, policyReq: r.request(in)}
	st.plain = len(in.req.Select) == 0 && len(in.req.Deny) == 0 && len(in.q.Negations()) == 0 && in.invoked == ""
	pr, err := r.c.index.Retrieve(r.ctx, in.q, retrieval.Request{
		Mandatory: slices.Collect(maps.Keys(in.mandatory)),
		Explicit:  slices.Collect(maps.Keys(in.explicit)),
		Invoked:   in.invoked,
		Denied:    in.denied,
		Wraps:     r.c.facts.wraps,
	}, judge{r, st}, r.pulse)
	if err != nil {
		if ctxErr := r.ctx.Err(); ctxErr != nil {
			return nil, canceled("", ctxErr)
		}
		return nil, err
	}
	if r.pulse.Err() != nil {
		return nil, nil // step reports the context's error
	}
	st.problem = pr
	for _, j := range pr.Ineligible {
		reason := st.judgedReason(j.Verdict)
		r.event(Event{Stage: StageRetrieve, Kind: EventRejected, Unit: j.Name, Code: reason.Code, Detail: reason.Detail, Score: round3(j.Score), Evidence: j.Evidence})
	}
	st.cands = make([]rules.Candidate, len(pr.Candidates))
	for i, c := range pr.Candidates {
		st.cands[i] = rules.Candidate{Name: c.Name, Origin: rules.Origin(c.Origin), Score: milli(c.Score)}
		if c.Origin == retrieval.OriginLexical {
			r.event(Event{Stage: StageRetrieve, Kind: EventCandidate, Unit: c.Name, Score: round3(c.Score), Evidence: pr.Evidence[c.Name]})
		}
	}
	// Every other unit's reasons are its standing, read when the result
	// is assembled (buildRejected).
	for _, i := range pr.CandidatePositions() {
		r.setReasons(i, nil)
	}
	for i, x := range pr.Judged() {
		r.setReasons(i, r.exclusion(st, i, x))
	}
	return st, nil
}

// judge asks the policy's eligible/3 (rules 2-6) for retrieval, and keeps
// each decision, whose rule and facts the result reports.
type judge struct {
	r  *compilation
	st *statement
}

func (j judge) Ineligible(ctx context.Context, cands []retrieval.Candidate) ([]retrieval.Verdict, error) {
	var (
		in   []rules.Candidate
		kept []rules.Decision // verdicts of a plain request kept from an earlier one
	)
	for _, c := range cands {
		if j.st.plain && c.Origin == retrieval.OriginLexical {
			if d, ok := j.r.c.eligibility.Load(c.Name); ok {
				if d := d.(*rules.Decision); d != nil {
					kept = append(kept, *d)
				}
				continue
			}
		}
		in = append(in, rules.Candidate{Name: c.Name, Origin: rules.Origin(c.Origin), Score: milli(c.Score)})
	}
	var ds []rules.Decision
	if len(in) > 0 {
		var err error
		if ds, err = j.r.c.engine.Ineligible(ctx, j.st.policyReq, in); err != nil {
			return nil, j.r.policyError(err)
		}
	}
	if j.st.plain {
		for _, c := range in {
			if c.Origin != rules.OriginLexical {
				continue
			}
			var d *rules.Decision
			if i := slices.IndexFunc(ds, func(d rules.Decision) bool { return d.Name == c.Name }); i >= 0 {
				d = &ds[i]
			}
			j.r.c.eligibility.Store(c.Name, d)
		}
	}
	ds = append(kept, ds...)
	out := make([]retrieval.Verdict, len(ds))
	for i, d := range ds {
		// Retrieval needs only the name and code; the result needs the
		// whole decision (its rule and facts), kept here.
		if j.st.judged == nil {
			j.st.judged = map[string]rules.Decision{}
		}
		j.st.judged[d.Name] = d
		out[i] = retrieval.Verdict{Name: d.Name, Code: retrieval.Code(d.Reason)}
	}
	return out, nil
}

// request builds the request facts the policy reads; decide adds the
// candidates and their pair facts, and the token counts it asks for.
func (r *compilation) request(in *input) *rules.Request {
	negs := in.q.Negations()
	req := &rules.Request{
		Budget:   in.budget,
		Explicit: in.explicit, Mandatory: in.mandatory, Denied: in.denied,
		Negated:   make(map[string]bool, len(negs)),
		Ambiguity: string(r.c.policy.Ambiguity), Threshold: milli(Threshold), TieRatio: TieRatio, SupportFloor: milli(SupportFloor), CandidateFloor: milli(CandidateFloor),
		MarginRatio: MarginRatio, ThresholdMargin: int(math.Round(100 * ThresholdMargin)), MinBreadth: MinBreadth, TieTaskShare: milli(TieTaskShare), MaterialFloor: milli(MaterialFloor),
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
func (r *compilation) exclusion(st *statement, i int, x retrieval.Exclusion) []Reason {
	u := r.c.cat.Units[i]
	if x.Judged {
		return []Reason{st.judgedReason(retrieval.Verdict{Name: u.Name, Code: x.Code})}
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
func (st *statement) judgedReason(v retrieval.Verdict) Reason {
	d, ok := st.judged[v.Name]
	if !ok {
		// Unreached: retrieval reports only what judge returned.
		d = rules.Decision{Name: v.Name, Reason: ReasonCode(v.Code)}
	}
	rs := st.reason(d)
	if said := st.q.Negated(v.Name); rs.Code == ReasonNegated && said != "" {
		// The policy's detail is only that the task asked; say how.
		rs.Detail = fmt.Sprintf("task says %q", said)
	}
	return rs
}

// scoreAt returns the evidence score of the unit at catalog position i.
func (st *statement) scoreAt(i int) float64 { return st.problem.ScoreAt(i) }

// score returns a unit's evidence score in this compile.
func (st *statement) score(name string) float64 { return st.problem.Score(name) }

// confidence returns the unit's confidence (retrieval.Problem.Confidence),
// or nil when it has no evidence.
func (st *statement) confidence(name string) *float64 {
	if st.score(name) <= 0 {
		return nil
	}
	if m, ok := st.confidences[name]; ok {
		c := float64(m) / 1000 // the policy asked already; exact to three decimals
		return &c
	}
	c := st.problem.Confidence(name)
	return &c
}

// crowd returns the unit ranked CrowdRank on the task, whose score is
// rule 10's crowd (crowd/2); false when fewer units have evidence.
func (st *statement) crowd() (retrieval.Ranked, bool) {
	if r := st.problem.Ranking; len(r) >= CrowdRank {
		return r[CrowdRank-1], true
	}
	return retrieval.Ranked{}, false
}

// explainedOf answers explained/3: the share (x 1000) of the task's
// informative weight a lexical candidate's evidence rests on.
func (st *statement) explainedOf(name string) (int, bool) {
	if !slices.ContainsFunc(st.cands, func(c rules.Candidate) bool { return c.Name == name && c.Origin == rules.OriginLexical }) {
		return 0, false
	}
	return milli(st.problem.Explained(name)), true
}

// confidenceOf answers confidence/3: a lexical candidate's confidence x
// 1000. The policy asks again for the same unit, so the answer is kept.
func (st *statement) confidenceOf(name string) (int, bool) {
	if c, ok := st.confidences[name]; ok {
		return c, true
	}
	if !slices.ContainsFunc(st.cands, func(c rules.Candidate) bool { return c.Name == name && c.Origin == rules.OriginLexical }) {
		return 0, false
	}
	if st.confidences == nil {
		st.confidences = map[string]int{}
	}
	c := milli(st.problem.Confidence(name))
	st.confidences[name] = c
	return c, true
}

// explainsMore answers explains_more/3 (rule 9): a fits the task at least
// TieExplained times as well as b (retrieval.Problem.ExplainsMore).
func (st *statement) explainsMore(a, b string) bool {
	return st.problem.ExplainsMore(a, b, TieExplained)
}

// meter is measure's value: the bodies read and verified against their
// digests, and the token counts, made when the policy asks for them
// (rule 12, packing), since a count needs the tokenizer's vocabulary,
// tens of milliseconds to load, which a compile that selects nothing may
// never need.
type meter struct {
	c         *Compiler
	tokenizer string
	bodies    map[string]string
	tokens    map[string]int
	uncounted map[string]*ir.Unit // read and verified, not counted yet
	refTokens map[string]int      // each unit's reference, counted
	countErr  error               // the first count that failed, reported by decide
	stale     map[string]error    // units whose body changed on disk: body_changed if counted
	// carried is Request.Carried; given holds, for each unit asked,
	// whether it carries the unit's inline block, and givenTokens the
	// tokens of the short block that then stands for it.
	carried     func(block string) bool
	given       map[string]bool
	givenTokens map[string]int
}

// measure readies the token counts of every candidate and every unit its
// closure could pull in: a count the catalog's cache holds is taken from
// it; any other unit's body is read and verified against its digest now,
// and counted when the policy asks for it (tokensOf). A body that changed
// on disk fails the compile (body_changed) only when the policy asks for
// its tokens, that is, when the unit is to be packed.
func (r *compilation) measure(st *statement) (*meter, error) {
	m := &meter{c: r.c, tokenizer: st.tokenizer, bodies: map[string]string{}, tokens: map[string]int{}, carried: st.req.Carried}
	need := map[string]bool{}
	for _, c := range st.cands {
		need[c.Name] = true
		for _, d := range r.c.facts.Closure(c.Name).Deps {
			need[d] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(need)) {
		if err := r.ctx.Err(); err != nil {
			return nil, canceled("", err) // reading bodies takes a while
		}
		u, ok := r.c.cat.Lookup(n)
		if !ok || u.Status != ir.StatusOK {
			continue // the policy rejects it without asking for tokens
		}
		if n, ok := r.c.tokens.get(m.tokenKey(u)); ok {
			m.tokens[u.Name] = n
			continue
		}
		if _, err := m.body(u); err != nil {
			// Its SKILL.md changed since the catalog was loaded. That
			// fails the compile only if the policy asks for its tokens
			// (tokensOf: it is to be packed); a candidate rejected before
			// packing must not block the answer. The next start reads
			// the catalog again.
			if m.stale == nil {
				m.stale = map[string]error{}
				r.c.cache.Drop(r.c.cacheKey)
			}
			m.stale[u.Name] = err
			continue
		}
		if m.uncounted == nil {
			m.uncounted = map[string]*ir.Unit{}
		}
		m.uncounted[u.Name] = u
	}
	return m, nil
}

// tokensOf answers the policy's tokens/3 for one unit: its count, made
// now if measure left it uncounted, and 0 for a unit measure skipped. A
// failed count is kept for decide to report, as measure's.
func (m *meter) tokensOf(name string) int {
	if m.isGiven(name) {
		return m.givenTokens[name]
	}
	if n, ok := m.tokens[name]; ok {
		return n
	}
	if m.isStale(name) {
		return 0
	}
	u, ok := m.uncounted[name]
	if !ok {
		return 0
	}
	delete(m.uncounted, name)
	n, err := m.count(u)
	if err != nil {
		if m.countErr == nil {
			m.countErr = err
		}
		return 0
	}
	m.tokens[name] = n
	return n
}

// isStale reports whether the unit name's body changed on disk since the
// load, keeping that body_changed error for decide to report: the policy
// asks its tokens only of a unit it would pack.
func (m *meter) isStale(name string) bool {
	err, ok := m.stale[name]
	if ok && m.countErr == nil {
		m.countErr = err
	}
	return ok
}

// referenceTokensOf answers the policy's reference_tokens/3 for one unit:
// the tokens of its reference (referenceText), counted once per compile
// with the path of its SKILL.md within its root, so that where a catalog
// lies on disk changes no decision (the prompt names the whole path, a few
// tokens more). A failed count is kept for decide to report, as
// tokensOf's.
func (m *meter) referenceTokensOf(name string) int {
	if n, ok := m.refTokens[name]; ok {
		return n
	}
	if m.isStale(name) { // its reference would name a file that changed
		return 0
	}
	u, ok := m.c.cat.Lookup(name)
	if !ok || u.Status != ir.StatusOK {
		return 0
	}
	n, err := CountTokens(m.tokenizer, referenceText(u, u.Path))
	if err != nil {
		if m.countErr == nil {
			m.countErr = err
		}
		return 0
	}
	if m.refTokens == nil {
		m.refTokens = map[string]int{}
	}
	m.refTokens[name] = n
	return n
}

// isGiven reports whether the conversation carries the unit name's
// inline block (Request.Carried) and the short block that would stand for
// it costs fewer tokens than the body (counted with the path of its
// SKILL.md within its root, as a reference's): a body of a line is sent
// again rather than pointed to. A unit whose body cannot be read is not
// given: tokensOf reports it.
func (m *meter) isGiven(name string) bool {
	if m.carried == nil {
		return false
	}
	if g, ok := m.given[name]; ok {
		return g
	}
	if m.given == nil {
		m.given, m.givenTokens = map[string]bool{}, map[string]int{}
	}
	m.given[name] = false
	u, ok := m.c.cat.Lookup(name)
	if !ok || u.Status != ir.StatusOK || m.isStale(name) {
		return false
	}
	body, err := m.body(u)
	if err != nil || !m.carried(inlineBlock(u.Name, body)) {
		return false
	}
	n, err := CountTokens(m.tokenizer, givenText(u.Name, u.Path))
	if err == nil {
		var whole int
		if whole, err = m.count(u); err == nil && n >= whole {
			return false
		}
	}
	if err != nil {
		if m.countErr == nil {
			m.countErr = err
		}
		return false
	}
	m.given[name], m.givenTokens[name] = true, n
	return true
}

// tokenKey keys a unit's count in the catalog's token cache.
func (m *meter) tokenKey(u *ir.Unit) string { return m.tokenizer + ":" + u.SHA256 }

// count counts u's body, through the compiler's token cache.
func (m *meter) count(u *ir.Unit) (int, error) {
	key := m.tokenKey(u)
	if n, ok := m.c.tokens.get(key); ok {
		return n, nil
	}
	body, err := m.body(u)
	if err != nil {
		return 0, err
	}
	if testHookCount != nil {
		testHookCount(u.Name)
	}
	n, err := CountTokens(m.tokenizer, body)
	if err != nil {
		return 0, err
	}
	m.c.tokens.put(key, n)
	return n, nil
}

// testHookCount, when a test sets it, sees every body counted.
var testHookCount func(name string)

// body returns u's body, read once per compile and verified against the
// digest the catalog holds.
func (m *meter) body(u *ir.Unit) (string, error) {
	if b, ok := m.bodies[u.Name]; ok {
		return b, nil
	}
	b, err := loader.ReadBody(u)
	if err != nil {
		return "", &Error{Code: ErrBodyChanged, Unit: u.Name, Message: err.Error()}
	}
	m.bodies[u.Name] = b
	return b, nil
}

// decide asks the Prolog policy and fails the compile when a host selection
// cannot be honored.
func (r *compilation) decide(st *statement, m *meter) (*verdict, error) {
	req := *st.policyReq
	req.Tokens, req.ReferenceTokens = m.tokensOf, m.referenceTokensOf
	req.Candidates = st.cands
	req.Redundant, req.SameObject, req.Breadth = st.problem.Redundant, st.problem.SameObject, st.problem.Breadth
	req.OwnWords, req.WholeTask = st.problem.OwnWords, st.problem.WholeTask
	if len(st.problem.Material) > 0 {
		req.Material = make(map[string]int, len(st.problem.Material))
		for n, w := range st.problem.Material {
			req.Material[n] = milli(w)
		}
	}
	req.Apart = make(map[[2]string]int, len(st.problem.Apart))
	for pair, w := range st.problem.Apart {
		req.Apart[pair] = milli(w)
	}
	req.OwnPart = make(map[[2]string]int, len(st.problem.OwnPart))
	for pair, w := range st.problem.OwnPart {
		req.OwnPart[pair] = milli(w)
	}
	req.Withdrawn = milli(st.problem.Withdrawn)
	req.Unavailable, req.UnavailableBy = milli(st.problem.Unavailable), st.problem.UnavailableBy
	if c, ok := st.crowd(); ok {
		req.Crowd, req.CrowdBar = milli(c.Score), milli(CrowdRatio*c.Score)
	}
	req.Judged = true // retrieve asked eligible/3 about every lexical candidate
	req.Confidence, req.ExplainsMore, req.Explained = st.confidenceOf, st.explainsMore, st.explainedOf
	decisions, err := r.c.engine.Decide(r.ctx, &req)
	if err != nil {
		return nil, r.policyError(err)
	}
	if m.countErr != nil {
		return nil, countError(m.countErr)
	}
	v := &verdict{statement: st, decisions: decisions}
	reasons := map[string][]Reason{}
	var order []string
	for _, d := range decisions {
		if d.Selected {
			if _, seen := reasons[d.Name]; !seen {
				order = append(order, d.Name)
			}
			reasons[d.Name] = append(reasons[d.Name], st.reason(d))
			continue
		}
		if _, selected := reasons[d.Name]; selected {
			// A candidate scored out and admitted as a dependency all the
			// same (the selections come first): it is selected, and its
			// explanation says so alone.
			continue
		}
		if st.explicit[d.Name] || st.mandatory[d.Name] {
			code, what := ErrSelectionRejected, "selected"
			if st.mandatory[d.Name] {
				code, what = ErrMandatoryRejected, "mandatory"
			}
			reason := st.reason(d)
			if u, ok := r.c.cat.Lookup(d.Name); ok && d.Reason == ReasonInvalid {
				// "see diagnostics" is no help where none are shown:
				// the first error is said instead.
				if e, ok := r.c.firstError(u); ok {
					reason.Detail = "the unit is invalid: " + e.Rooted()
				}
			}
			return nil, &Error{Code: code, Unit: d.Name, Reason: d.Reason,
				Message: fmt.Sprintf("%s unit %q cannot be honored: %s", what, d.Name, describe(reason))}
		}
		u, _ := r.c.cat.Lookup(d.Name)
		reason := st.reason(d)
		r.setReasons(r.c.posOf(u), []Reason{reason})
		r.event(Event{Stage: StageDecide, Kind: EventRejected, Unit: d.Name, Code: d.Reason, Detail: reason.Detail})
	}
	for _, d := range decisions {
		if d.Selected && d.Facts.Reference {
			if v.references == nil {
				v.references = map[string]bool{}
			}
			v.references[d.Name] = true
		}
	}
	for _, n := range order {
		u, _ := r.c.cat.Lookup(n)
		r.setReasons(r.c.posOf(u), nil) // a dependency may also have been scored out
		v.selected = append(v.selected, u)
		tokens, rendering := m.tokensOf(n), RenderingInline
		switch {
		case v.references[n]:
			tokens, rendering = m.referenceTokensOf(n), RenderingReference
		case m.isGiven(n):
			rendering = RenderingGiven
			if v.given == nil {
				v.given = map[string]bool{}
			}
			v.given[n] = true
		}
		v.entries = append(v.entries, Selected{
			Name: u.Name, Root: u.Root, Path: u.Path, Tokens: tokens, Rendering: rendering,
			Priority: r.c.facts.priorityOf(u), Score: round3(st.score(n)), Confidence: st.confidence(n), Reasons: reasons[n],
		})
		if m.countErr != nil {
			return nil, countError(m.countErr)
		}
		r.event(Event{Stage: StageDecide, Kind: EventSelected, Unit: n, Code: reasons[n][0].Code, Detail: reasons[n][0].Detail})
		if said := st.q.Negated(n); said != "" {
			// Only a host decision or its closure can select a negated
			// unit (rule 5, rule 6): say so, the task asked otherwise.
			r.event(Event{Stage: StageDecide, Kind: EventNegationOverridden, Unit: n, Code: reasons[n][0].Code, Detail: said})
		}
	}
	r.explainWeak(st, v.selected)
	return v, nil
}

// explainWeak gives the best-ranked units retrieval kept from the policy
// (below the candidate floor, or outside the best CandidateCap) their
// evidence in the explanation: a newcomer asks why a unit with some
// evidence lost, and the answer is what the task said for it. Only the
// Ranking's few are explained, so a large catalog costs no more. A unit
// selected all the same (a dependency of one selected) is not: its
// explanation said it was rejected, then selected.
func (r *compilation) explainWeak(st *statement, selected []*ir.Unit) {
	explained := map[string]bool{}
	for _, e := range r.events {
		if e.Evidence != nil {
			explained[e.Unit] = true
		}
	}
	for _, u := range selected {
		explained[u.Name] = true
	}
	for _, rk := range st.problem.Ranking {
		u, ok := r.c.cat.Lookup(rk.Name)
		if !ok || explained[rk.Name] || rk.Score == 0 || !rejectedFor(r.reasonsAt(st, r.c.posOf(u)), ReasonBelowThreshold) {
			continue
		}
		if ev := st.problem.EvidenceOf(rk.Name); ev != nil {
			r.event(Event{Stage: StageRetrieve, Kind: EventRejected, Unit: rk.Name, Code: ReasonBelowThreshold, Score: round3(rk.Score), Evidence: ev})
		}
	}
}

// render reads the selected bodies (verifying them against the catalog) and
// builds the prompt block.
func render(v *verdict, m *meter) (*rendered, error) {
	units := make([]renderedUnit, 0, len(v.selected))
	var inline []*ir.Unit
	for _, u := range v.selected {
		if v.references[u.Name] {
			units = append(units, renderedUnit{name: u.Name, ref: u})
			continue
		}
		if v.given[u.Name] {
			units = append(units, renderedUnit{name: u.Name, ref: u, given: true})
			continue
		}
		body, err := m.body(u)
		if err != nil {
			return nil, err
		}
		units = append(units, renderedUnit{name: u.Name, body: body})
		inline = append(inline, u)
	}
	return &rendered{prompt: renderPrompt(units, referencePath), units: units, inline: inline}, nil
}

// fingerprint identifies the prompt and the selected units. A reference
// names where its SKILL.md is on this machine, which is no part of what
// the prompt is: the fingerprint reads the path within its root.
func fingerprint(v *verdict, rd *rendered) string {
	fp := rd.prompt
	if len(v.references)+len(v.given) > 0 {
		fp = renderPrompt(rd.units, func(u *ir.Unit) string { return u.Path })
	}
	return promptFingerprint(fp, v.selected)
}

// assemble makes the result of a compile from its stages' values and the
// account the compilation kept.
func (r *compilation) assemble(v *verdict, rd *rendered, fp string) *Result {
	res := &Result{
		Schema: Schema, Prompt: rd.prompt, Fingerprint: fp, CatalogFingerprint: r.c.catalogFP,
		Budget:   Budget{Limit: v.budget, Tokenizer: v.tokenizer},
		Selected: v.entries, Ranking: v.problem.Ranking, Decision: DecisionNoRoute,
		// The result owns its diagnostics: a host may change a result
		// (but for one a memo shares: LiveOptions.Memo).
		Diagnostics: slices.Clone(r.c.diags),
	}
	// A deny or a why naming no unit is most likely a typo for one (a
	// deny's stays allowed): the result says so, to every host.
	if unknown := slices.Concat(UnknownDenies(r.c, "deny", v.req.Deny), UnknownNames(r.c, "why", v.req.Why)); len(unknown) > 0 {
		res.Diagnostics = append(res.Diagnostics, unknown...)
		res.Diagnostics.Sort()
	}
	if res.Selected == nil {
		res.Selected = []Selected{}
	}
	for _, s := range res.Selected {
		res.Budget.Used += s.Tokens
	}
	near := r.nearMisses(v.statement)
	evidence := r.evidence(v.statement, near)
	attachEvidence(r.c.cat, res.Selected, evidence)
	res.Rejected, res.Unlisted = r.buildRejected(v, evidence, near)
	if len(v.selected) > 0 {
		res.Decision = DecisionRoute
	}
	for _, d := range v.decisions {
		if d.Reason == ReasonAmbiguous && r.c.policy.Ambiguity == AmbiguityAsk {
			res.Decision = DecisionAmbiguous
			res.Ambiguous = append(res.Ambiguous, d.Name)
		}
	}
	res.Events = r.events
	return res
}

// evidence is the evidence the compile computed, by unit name: the
// candidates', that of the units the explanation shows (judged
// ineligible among the best, or best-ranked below the floor) and the near
// misses' (catalog positions), which the result lists. Any other unit the
// result lists with a score gets its own when its entry is made
// (buildRejected), however it came to be listed.
func (r *compilation) evidence(st *statement, near []int) map[string][]Evidence {
	evidence := make(map[string][]Evidence, len(st.problem.Evidence))
	add := func(n string, ev []Evidence) {
		if len(ev) > 0 {
			evidence[n] = st.shown(ev)
		}
	}
	for n, ev := range st.problem.Evidence {
		add(n, ev)
	}
	for _, e := range r.events {
		if _, done := evidence[e.Unit]; !done {
			add(e.Unit, e.Evidence)
		}
	}
	for _, i := range near {
		if n := r.c.rows[i].name; evidence[n] == nil {
			add(n, st.problem.EvidenceOf(n))
		}
	}
	return evidence
}

// shown returns ev as a result shows it: weights to three decimals, like
// scores (the last bits of a float sum are no contract), with the task's
// words (withWords).
func (st *statement) shown(ev []Evidence) []Evidence {
	out := make([]Evidence, len(ev))
	for i, e := range ev {
		out[i] = Evidence{Field: e.Field, Terms: e.Terms, Weight: round3(e.Weight), Source: e.Source, Kind: e.Kind}
	}
	st.withWords(out)
	return out
}

// withWords gives each piece of ev the task's words its terms stand for
// (Evidence.Words), where one differs from its term: a stem ("polici") is
// how rlmc matches, not what a reader recognises.
func (st *statement) withWords(ev []Evidence) {
	if st.said == nil {
		// Once a compile: the reasons and the result's evidence share it.
		st.said = st.q.Surface(nil)
	}
	for i := range ev {
		e := &ev[i]
		e.Words = nil
		for k, t := range e.Terms {
			if w, ok := st.said[t]; ok && e.Words == nil {
				e.Words = append(slices.Clone(e.Terms[:k:k]), w)
			} else if e.Words != nil {
				e.Words = append(e.Words, cmp.Or(st.said[t], t))
			}
		}
	}
}

// attachEvidence gives the selected units their evidence; buildRejected
// gives the rejected theirs. Only the unit that bears a name gets its
// evidence, never a shadowed namesake.
func attachEvidence(cat *ir.Catalog, selected []Selected, evidence map[string][]Evidence) {
	for i := range selected {
		s := &selected[i]
		ev, ok := evidence[s.Name]
		if !ok {
			continue
		}
		if u, ok := cat.Lookup(s.Name); ok && u.Root == s.Root && u.Path == s.Path {
			s.Evidence = ev
		}
	}
}
