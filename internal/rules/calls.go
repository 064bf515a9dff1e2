package rules

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ichiban/prolog/engine"
)

// policyPath is how load errors name the policy text: the embedded one,
// or a text given to NewWithPolicy, which stands in for it.
const policyPath = "internal/rules/policy.pl"

// entryPoints are the predicates Go calls (Engine.Decide, Engine.Ineligible),
// each with the request term as its first argument: checkDefinitions
// requires them, and checkCalls follows the request down from them.
var entryPoints = []struct {
	name  string
	arity int
}{
	{"decide", 4},
	{"eligible", 3},
}

// CallError is a goal of a policy text that no run could answer as meant:
// a native called against its description in natives.go (a wrong arity,
// an argument of the wrong kind, the request where it does not go, an
// input unbound at the call), or a predicate that neither the text nor the
// sandbox defines. The load refuses the text: a miscalled native that
// answered false would read as "not denied".
type CallError struct {
	Path    string // the policy text, as policyPath names it
	Line    int    // the call's line, 1-based
	Pred    string // the goal's name/arity, as written
	Mode    string // the native's description (denied(+Req, +Name)), or ""
	Arg     int    // the argument at fault, 1-based; 0 for the call as a whole
	Problem string
}

func (e *CallError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s", e.Path, e.Line, e.Pred)
	if e.Arg > 0 {
		fmt.Fprintf(&b, " argument %d", e.Arg)
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	if e.Mode != "" {
		fmt.Fprintf(&b, "; it is %s", e.Mode)
	}
	return b.String()
}

// sourceTerm is one term of a policy text as read: the term, the names of
// its variables and where its text lies (from the end of the previous
// term to its own full stop).
type sourceTerm struct {
	term       engine.Term
	names      map[engine.Variable]string
	start, end int
}

// readPolicy reads a policy text term by term, as the interpreter read it
// when it loaded, keeping where each term lies. (The interpreter's own
// parsed clauses are compiled to bytecode and out of reach.)
func readPolicy(vm *engine.VM, source string) ([]sourceTerm, error) {
	r := &offsetReader{s: source}
	p := engine.NewParser(vm, r)
	var out []sourceTerm
	start := 0
	for p.More() {
		p.Vars = p.Vars[:0] // variables are the clause's own
		t, err := p.Term()
		if err != nil {
			return nil, fmt.Errorf("rules: policy does not parse: %w", err)
		}
		// The lexer has read the full stop and a rune past it at most.
		end := r.off
		if i := strings.LastIndexByte(source[max(0, end-8):end], '.'); i >= 0 {
			end = max(0, end-8) + i + 1
		}
		st := sourceTerm{term: t, start: start, end: end}
		if len(p.Vars) > 0 {
			st.names = make(map[engine.Variable]string, len(p.Vars))
			for _, v := range p.Vars {
				st.names[v.Variable] = v.Name.String()
			}
		}
		out = append(out, st)
		start = end
	}
	return out, nil
}

// offsetReader reads a string rune by rune, counting the bytes read.
type offsetReader struct {
	s   string
	off int
}

func (r *offsetReader) ReadRune() (rune, int, error) {
	if r.off >= len(r.s) {
		return 0, 0, io.EOF
	}
	c, n := utf8.DecodeRuneInString(r.s[r.off:])
	r.off += n
	return c, n, nil
}

// step is one step down a term: argument index of a compound
// functor/arity.
type step struct {
	functor engine.Atom
	arity   int
	index   int
}

// path leads from a goal (or a clause head) to a subterm.
type path []step

func (p path) key() string {
	var b strings.Builder
	for _, s := range p {
		fmt.Fprintf(&b, "%d/%d#%d|", s.functor, s.arity, s.index)
	}
	return b.String()
}

// maxPath bounds the request paths followed, so a predicate that nests
// its argument deeper at every call still ends the inference.
const maxPath = 8

// callChecker checks the goals of a policy text against the natives'
// table, the builtins and the text's own predicates.
type callChecker struct {
	src     string
	lines   []int // byte offset of each line's start
	terms   []sourceTerm
	natives map[string]native   // by name/arity
	byName  map[string][]native // by name
	builtin map[string]bool     // name/arity
	defined map[string]bool     // name/arity the text defines
	// request holds, per predicate of the text (name/arity), the paths
	// from its head at which it receives the request term.
	request map[string]map[string]path
	grew    bool
	errs    []*CallError
}

// checkCalls checks every goal of a policy text (clause bodies, under \+
// too, and directives) against what can answer it: a call to a native
// must have its arity and, where the argument's kind is known from the
// text, the kind natives.go describes. The request must be a variable
// holding the request term Go passes to an entry point (followed down
// through the text's own predicates, compound arguments and =/2); an
// atom argument no number or compound; an integer output a variable or
// an integer; an input no variable first seen at the call (unbound
// there). A goal naming what nothing defines is refused too.
func checkCalls(src string, terms []sourceTerm) error {
	c := &callChecker{
		src:     src,
		terms:   terms,
		natives: map[string]native{},
		byName:  map[string][]native{},
		builtin: map[string]bool{},
		defined: map[string]bool{},
		request: map[string]map[string]path{},
	}
	c.lines = append(c.lines, 0)
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			c.lines = append(c.lines, i+1)
		}
	}
	for _, n := range natives(nil) {
		c.natives[n.indicator()] = n
		c.byName[n.name] = append(c.byName[n.name], n)
	}
	for _, b := range builtins {
		c.builtin[b] = true
	}
	for _, t := range terms {
		if h, ok := headOf(t.term); ok {
			c.defined[indicator(h)] = true
		}
	}
	for _, e := range entryPoints {
		pi := fmt.Sprintf("%s/%d", e.name, e.arity)
		c.addRequest(pi, path{{engine.NewAtom(e.name), e.arity, 0}})
	}
	// Follow the request down to a fixed point, then check with what
	// that found.
	for c.grew = true; c.grew; {
		c.grew = false
		for i := range terms {
			c.clause(i, false)
		}
	}
	for i := range terms {
		c.clause(i, true)
	}
	if len(c.errs) == 0 {
		return nil
	}
	sort.SliceStable(c.errs, func(i, j int) bool { return c.errs[i].Line < c.errs[j].Line })
	errs := make([]error, len(c.errs))
	for i, e := range c.errs {
		errs[i] = e
	}
	return fmt.Errorf("rules: policy calls predicates wrongly:\n%w", errors.Join(errs...))
}

func (c *callChecker) addRequest(pi string, p path) {
	if len(p) > maxPath {
		return
	}
	m := c.request[pi]
	if m == nil {
		m = map[string]path{}
		c.request[pi] = m
	}
	k := p.key()
	if _, ok := m[k]; !ok {
		m[k] = slices.Clone(p)
		c.grew = true
	}
}

var (
	atomNeck  = engine.NewAtom(":-")
	atomComma = engine.NewAtom(",")
	atomNot   = engine.NewAtom(`\+`)
	atomUnify = engine.NewAtom("=")
	atomIs    = engine.NewAtom("is")
	atomCut   = engine.NewAtom("!")
	atomDCG   = engine.NewAtom("-->")
)

// headOf returns the head of a clause or fact; a directive or a grammar
// rule has none.
func headOf(t engine.Term) (engine.Term, bool) {
	switch c := t.(type) {
	case engine.Atom:
		return c, true
	case engine.Compound:
		switch {
		case c.Functor() == atomNeck && c.Arity() == 1, c.Functor() == atomDCG && c.Arity() == 2:
			return nil, false
		case c.Functor() == atomNeck && c.Arity() == 2:
			return c.Arg(0), true
		}
		return c, true
	}
	return nil, false
}

// indicator is name/arity of a callable term.
func indicator(t engine.Term) string {
	switch c := t.(type) {
	case engine.Atom:
		return c.String() + "/0"
	case engine.Compound:
		return fmt.Sprintf("%s/%d", c.Functor(), c.Arity())
	}
	return ""
}

// clauseState is what the walk of one clause knows.
type clauseState struct {
	st *sourceTerm
	// carriers maps a variable to the paths, inside the term it holds,
	// at which the request term sits; an empty path: it is the request.
	carriers map[engine.Variable][]path
	seen     map[engine.Variable]bool // occurred before the goal at hand
	integer  map[engine.Variable]bool // bound to an integer by an earlier goal
	// count numbers the compounds of the clause by functor in source
	// order, to find a goal's line (siteOf).
	count  map[engine.Atom]int
	report bool
}

// clause walks term i: its head's request paths give the carriers, then
// each goal in source order adds request paths to the predicates it
// calls or, when reporting, is checked.
func (c *callChecker) clause(i int, report bool) {
	st := &c.terms[i]
	s := &clauseState{
		st:       st,
		carriers: map[engine.Variable][]path{},
		seen:     map[engine.Variable]bool{},
		integer:  map[engine.Variable]bool{},
		count:    map[engine.Atom]int{},
		report:   report,
	}
	t := st.term
	if comp, ok := t.(engine.Compound); ok && comp.Functor() == atomDCG && comp.Arity() == 2 {
		return // a grammar rule: the interpreter translates it; nothing here is a goal as written
	}
	var body engine.Term
	if comp, ok := t.(engine.Compound); ok && comp.Functor() == atomNeck {
		s.count[atomNeck]++
		switch comp.Arity() {
		case 1:
			body = comp.Arg(0)
		case 2:
			head := comp.Arg(0)
			for _, p := range c.request[indicator(head)] {
				follow(head, p, s.carriers)
			}
			s.data(head)
			body = comp.Arg(1)
		}
	} else {
		s.data(t) // a fact: no goal
	}
	if body != nil {
		c.goals(s, body)
	}
}

// data counts the compounds of a term that is no goal and marks its
// variables seen.
func (s *clauseState) data(t engine.Term) {
	switch t := t.(type) {
	case engine.Variable:
		s.seen[t] = true
	case engine.Compound:
		s.count[t.Functor()]++
		for i := 0; i < t.Arity(); i++ {
			s.data(t.Arg(i))
		}
	}
}

// goals walks a body in source order.
func (c *callChecker) goals(s *clauseState, t engine.Term) {
	switch g := t.(type) {
	case engine.Variable:
		c.fail(s, g, "", "", 0, "a variable as a goal: the sandbox has no call/1")
		s.seen[g] = true
	case engine.Atom:
		if g != atomCut {
			c.call(s, g, nil)
		}
	case engine.Compound:
		switch {
		case g.Functor() == atomComma && g.Arity() == 2:
			s.count[atomComma]++
			c.goals(s, g.Arg(0))
			c.goals(s, g.Arg(1))
		case g.Functor() == atomNot && g.Arity() == 1:
			s.count[atomNot]++
			if v, ok := g.Arg(0).(engine.Variable); ok {
				s.seen[v] = true // \+ G calls what G holds when it runs
				return
			}
			c.goals(s, g.Arg(0))
		default:
			s.count[g.Functor()]++
			c.call(s, g, g)
		}
	default:
		c.fail(s, nil, indicator(t), "", 0, "not callable")
	}
}

// call handles one goal, g (nil for an atom goal).
func (c *callChecker) call(s *clauseState, goal engine.Term, g engine.Compound) {
	pi := indicator(goal)
	site := 0 // an atom goal is not written name(...): its clause's line
	if g != nil {
		site = s.count[g.Functor()]
	}
	defer func() {
		if g != nil {
			for i := 0; i < g.Arity(); i++ {
				s.data(g.Arg(i))
			}
		}
	}()
	if n, ok := c.natives[pi]; ok {
		if s.report {
			c.native(s, n, g, site)
		}
		return
	}
	switch {
	case c.builtin[pi]:
		if g != nil && g.Functor() == atomUnify {
			unify(s, g.Arg(0), g.Arg(1))
			unify(s, g.Arg(1), g.Arg(0))
		}
		if g != nil && g.Functor() == atomIs {
			if v, ok := g.Arg(0).(engine.Variable); ok && !s.seen[v] {
				s.integer[v] = true
			}
		}
	case c.defined[pi]:
		if g != nil {
			for i := 0; i < g.Arity(); i++ {
				base := path{{g.Functor(), g.Arity(), i}}
				walkVars(g.Arg(i), base, func(v engine.Variable, at path) {
					for _, sub := range s.carriers[v] {
						c.addRequest(pi, append(slices.Clone(at), sub...))
					}
				})
			}
		}
	default:
		if !s.report {
			return
		}
		name := functorOf(goal).String()
		if ns := c.byName[name]; len(ns) > 0 {
			var modes []string
			for _, n := range ns {
				modes = append(modes, n.mode())
			}
			c.fail(s, goal, pi, strings.Join(modes, ", "), site,
				fmt.Sprintf("no predicate: the native %s takes %d arguments", name, len(ns[0].args)))
			return
		}
		c.fail(s, goal, pi, "", site, "neither the policy nor the sandbox defines it")
	}
}

func functorOf(t engine.Term) engine.Atom {
	switch t := t.(type) {
	case engine.Atom:
		return t
	case engine.Compound:
		return t.Functor()
	}
	return 0
}

// native checks the arguments of a call to n.
func (c *callChecker) native(s *clauseState, n native, g engine.Compound, site int) {
	bad := func(i int, problem string) {
		c.fail(s, g, n.indicator(), n.mode(), site, problem, i+1)
	}
	for i, a := range n.args {
		t := g.Arg(i)
		v, isVar := t.(engine.Variable)
		isReq := isVar && slices.ContainsFunc(s.carriers[v], func(p path) bool { return len(p) == 0 })
		fresh := isVar && !s.seen[v]
		name := s.name(t)
		switch {
		case a.typ == argAny:
			continue
		case a.typ == argRequest:
			switch {
			case fresh:
				bad(i, fmt.Sprintf("%s (%s) is unbound here: the request goes there", name, a.name))
			case !isVar:
				bad(i, fmt.Sprintf("%s is no request: %s is the request term Go passes to %s", name, a.name, entryList()))
			case !isReq:
				bad(i, fmt.Sprintf("%s is not the request term Go passes to %s, which goes there", name, entryList()))
			}
			continue
		case isReq:
			bad(i, fmt.Sprintf("the request (%s) goes where %s does", name, a.name))
			continue
		}
		switch a.typ {
		case argOut:
		case argOutAtom:
			if !isVar {
				if _, ok := t.(engine.Atom); !ok {
					bad(i, fmt.Sprintf("%s where %s, an atom, comes out: the call could only fail", name, a.name))
				}
			} else if s.integer[v] {
				bad(i, fmt.Sprintf("%s holds an integer where %s, an atom, comes out", name, a.name))
			}
		case argOutInt:
			if !isVar {
				if _, ok := t.(engine.Integer); !ok {
					bad(i, fmt.Sprintf("%s where %s, an integer, comes out: the call could only fail", name, a.name))
				}
			}
		default:
			if fresh {
				bad(i, fmt.Sprintf("%s (%s) is unbound here: an input must be bound", name, a.name))
				continue
			}
			if p := s.input(a.typ, t); p != "" {
				bad(i, fmt.Sprintf("%s %s (%s)", name, p, a.name))
			}
		}
	}
	// What the call binds: an integer output, to an integer.
	for i, a := range n.args {
		if v, ok := g.Arg(i).(engine.Variable); ok && a.typ == argOutInt && !s.seen[v] {
			s.integer[v] = true
		}
	}
}

// input returns what is wrong with t as an input of kind k, or "".
func (s *clauseState) input(k argType, t engine.Term) string {
	if v, ok := t.(engine.Variable); ok {
		if s.integer[v] && k != argTerm {
			return "holds an integer"
		}
		return ""
	}
	switch k {
	case argAtom:
		if _, ok := t.(engine.Atom); !ok {
			return "is no atom"
		}
	case argAtoms, argList, argLists, argCands, argPairs:
		for {
			switch l := t.(type) {
			case engine.Variable:
				if !s.seen[l] {
					return "ends in a tail unbound here"
				}
				return ""
			case engine.Compound:
				if l.Functor() != atomDot || l.Arity() != 2 {
					return "is no list"
				}
				if p := s.elem(k, l.Arg(0)); p != "" {
					return "holds " + p
				}
				t = l.Arg(1)
			default:
				if t != atomEmpty {
					return "is no list"
				}
				return ""
			}
		}
	}
	return ""
}

// elem returns what is wrong with t as an element of a list of kind k,
// or "".
func (s *clauseState) elem(k argType, t engine.Term) string {
	if v, ok := t.(engine.Variable); ok {
		switch {
		case k == argList:
		case slices.ContainsFunc(s.carriers[v], func(p path) bool { return len(p) == 0 }):
			return "the request"
		case !s.seen[v]:
			return s.name(t) + ", unbound here"
		case k == argAtoms && s.integer[v]:
			return s.name(t) + ", an integer"
		}
		return ""
	}
	c, isCompound := t.(engine.Compound)
	switch k {
	case argAtoms:
		if _, ok := t.(engine.Atom); !ok {
			return s.name(t) + ", no atom"
		}
	case argLists:
		if !(t == atomEmpty || isCompound && c.Functor() == atomDot && c.Arity() == 2) {
			return s.name(t) + ", no list"
		}
	case argCands:
		if !(isCompound && c.Functor() == atomCand && c.Arity() == 3) {
			return s.name(t) + ", no cand/3"
		}
	case argPairs:
		if !(isCompound && c.Functor() == atomMinus && c.Arity() == 2) {
			return s.name(t) + ", no Key-Value pair"
		}
	}
	return ""
}

// name describes a term for an error: a variable by its name, a constant
// as written, a compound by its functor.
func (s *clauseState) name(t engine.Term) string {
	switch t := t.(type) {
	case engine.Variable:
		if n, ok := s.st.names[t]; ok {
			return n
		}
		return "_"
	case engine.Atom:
		if t == atomEmpty {
			return "[]"
		}
		return "the atom " + t.String()
	case engine.Integer:
		return fmt.Sprintf("the integer %d", int64(t))
	case engine.Float:
		return fmt.Sprintf("the float %g", float64(t))
	case engine.Compound:
		if t.Functor() == atomDot && t.Arity() == 2 {
			return "a list"
		}
		return fmt.Sprintf("the compound %s/%d", t.Functor(), t.Arity())
	}
	return "a term"
}

func entryList() string {
	var out []string
	for _, e := range entryPoints {
		out = append(out, fmt.Sprintf("%s/%d", e.name, e.arity))
	}
	return strings.Join(out, " and ")
}

// fail records an error at the site-th compound named like goal, or at
// the clause's first line when the source does not show it.
func (c *callChecker) fail(s *clauseState, goal engine.Term, pi, mode string, site int, problem string, arg ...int) {
	if !s.report {
		return
	}
	e := &CallError{Path: policyPath, Line: c.line(s.st, functorOf(goal), site), Pred: pi, Mode: mode, Problem: problem}
	if len(arg) > 0 {
		e.Arg = arg[0]
	}
	if e.Pred == "" {
		e.Pred = "goal"
	}
	c.errs = append(c.errs, e)
}

// line returns the line of the site-th compound (1-based) whose functor
// is f in the term's text, counting as the walk counts; or the line the
// term's text starts at.
func (c *callChecker) line(st *sourceTerm, f engine.Atom, site int) int {
	off := skipLayout(c.src, st.start, st.end)
	if f != 0 && site > 0 {
		if sites := callSites(c.src, st.start, st.end, f.String()); site <= len(sites) {
			off = sites[site-1]
		}
	}
	return sort.SearchInts(c.lines, off+1)
}

// follow walks t along p and records in carriers the variable it meets
// with what is left of p: the request sits there inside the variable's
// term. A step the term does not match ends the walk: the request
// cannot arrive that way.
func follow(t engine.Term, p path, carriers map[engine.Variable][]path) {
	for i, st := range p {
		switch u := t.(type) {
		case engine.Variable:
			addPath(carriers, u, p[i:])
			return
		case engine.Compound:
			if u.Functor() != st.functor || u.Arity() != st.arity {
				return
			}
			t = u.Arg(st.index)
		default:
			return
		}
	}
	if v, ok := t.(engine.Variable); ok {
		addPath(carriers, v, nil)
	}
}

func addPath(carriers map[engine.Variable][]path, v engine.Variable, p path) {
	if !slices.ContainsFunc(carriers[v], func(q path) bool { return q.key() == p.key() }) {
		carriers[v] = append(carriers[v], slices.Clone(p))
	}
}

// unify passes the request from a carrier variable in x to the variables
// y holds at the same place (X = Y, read one way).
func unify(s *clauseState, x, y engine.Term) {
	walkVars(x, nil, func(v engine.Variable, at path) {
		for _, sub := range s.carriers[v] {
			follow(y, append(slices.Clone(at), sub...), s.carriers)
		}
	})
}

// walkVars calls f on every variable inside t with its path from t.
func walkVars(t engine.Term, at path, f func(engine.Variable, path)) {
	switch t := t.(type) {
	case engine.Variable:
		f(t, at)
	case engine.Compound:
		if len(at) >= maxPath {
			return
		}
		for i := 0; i < t.Arity(); i++ {
			walkVars(t.Arg(i), append(at[:len(at):len(at)], step{t.Functor(), t.Arity(), i}), f)
		}
	}
}

// skipLayout returns the offset of the first character of src[from:to]
// that is neither layout nor in a comment, or from.
func skipLayout(src string, from, to int) int {
	for i := from; i < to; {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r':
			i++
		case src[i] == '%':
			i = lineEnd(src, i, to)
		case strings.HasPrefix(src[i:to], "/*"):
			i = commentEnd(src, i, to)
		default:
			return i
		}
	}
	return from
}

func lineEnd(src string, i, to int) int {
	if j := strings.IndexByte(src[i:to], '\n'); j >= 0 {
		return i + j + 1
	}
	return to
}

func commentEnd(src string, i, to int) int {
	if j := strings.Index(src[i+2:to], "*/"); j >= 0 {
		return i + 2 + j + 2
	}
	return to
}

// callSites returns the offsets in src[from:to] where a compound named
// name is written in functional notation (name, plain or quoted, then
// "(" at once), in order, outside comments, quoted text and character
// codes (0'c).
func callSites(src string, from, to int, name string) []int {
	var out []int
	alnum := func(b byte) bool {
		return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
	}
	for i := from; i < to; {
		b := src[i]
		switch {
		case b == '%':
			i = lineEnd(src, i, to)
		case b == '/' && i+1 < to && src[i+1] == '*':
			i = commentEnd(src, i, to)
		case b == '\'' || b == '"' || b == '`':
			j, text := quoted(src, i, to)
			if b == '\'' && text == name && j < to && src[j] == '(' {
				out = append(out, i)
			}
			i = j
		case alnum(b):
			j := i
			for j < to && alnum(src[j]) {
				j++
			}
			switch {
			case src[i:j] == "0" && j < to && src[j] == '\'':
				// 0'c: skip the quote and the character, escaped or doubled.
				j++
				if j < to && (src[j] == '\\' || src[j] == '\'') {
					j++
				}
				if j < to {
					_, n := utf8.DecodeRuneInString(src[j:to])
					j += n
				}
			case src[i:j] == name && j < to && src[j] == '(':
				out = append(out, i)
			}
			i = j
		default:
			i++
		}
	}
	return out
}

// quoted reads the quoted text starting at src[i] and returns the offset
// past its closing quote and the text between, with doubled quotes
// undone (escapes are kept as written).
func quoted(src string, i, to int) (int, string) {
	q := src[i]
	var b strings.Builder
	for j := i + 1; j < to; j++ {
		switch src[j] {
		case '\\':
			if j+1 < to {
				b.WriteByte(src[j])
				j++
			}
			b.WriteByte(src[j])
		case q:
			if j+1 < to && src[j+1] == q {
				b.WriteByte(q)
				j++
				continue
			}
			return j + 1, b.String()
		default:
			b.WriteByte(src[j])
		}
	}
	return to, b.String()
}
