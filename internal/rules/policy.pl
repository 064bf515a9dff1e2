% rlmc host policy: which prompt units enter the planner context.
%
% This file is the whole decision specification after retrieval. Go has
% scored the task against the catalog (rule 1, evidence: package retrieval,
% internal/retrieval/score.go) and computed every unit's dependency closure
% once per catalog; this policy judges what Go shows it. It never sees
% skill text, only names and numbers.
%
% Who decides what:
%   Rule 1 (evidence) is Go's alone: a unit scoring below the candidate
%   floor (1.5) is never shown to this policy (no_evidence when it scores
%   0, below_threshold with rule 1's clause otherwise), nor is an eligible
%   unit outside the best four lexical candidates (CandidateCap), unless
%   it answers a clause of the task best and scores at least 4.5
%   (ClauseFloor; at most four such more). A
%   shadowed unit is never shown either: its name answers for the unit
%   that shadows it, so the catalog, not a rule here, keeps it out.
%   Rules 2-6 (deny, standing, explicit-user-only, negation, dependencies)
%   are decided here, and only here, for every unit Go shows the policy:
%   eligible/3 over the lexical units above the candidate floor, best
%   first, and, in its first call, over the units the request names (those
%   the host denies and those the task negates), whatever their score; and
%   decide/4 over the host's selections and mandatory units. Go decides
%   none of them.
%   Rules 7-12 are decided here, by decide/4, over the candidates.
%
% Every decision is select(Name, Reason, because(Rule, Facts)) or
% reject(Name, Reason, because(Rule, Facts)): Reason is a code of the JSON
% contract, Rule the name of the rule that made the decision (evidence,
% deny, standing, explicit_user_only, negation, dependencies, supersedes,
% order, ambiguity, strength, redundancy, packing: rules 1-12 of
% docs/how-a-compile-decides.md), Facts what it compared: clause(C) (which clause of the rule,
% when it has several), score(S), threshold(T), support_floor(F),
% margin(P) (percent of the runner-up's score), runner_up(Name, S) | withdrawn_runner_up(S) | no_runner_up,
% breadth(B), kept(Name, S), by(Name) (first, when the rule cites a unit),
% tokens(N), budget_left(N), missing(Name), path(Cycle),
% dependency(Name, Why), reference(InlineTokens, Left) (rule 12: admitted
% rendered as a reference, its group's bodies' InlineTokens not fitting in
% the Left left of the budget). Go checks, when it loads this file, that every
% reason, rule, clause and fact written here is in its vocabulary
% (internal/rules/vocab.go), so a new one cannot reach the contract untyped.
%
% Numbers are integers: scores and thresholds are evidence x 1000.
%
% Facts about the catalog (Go-native, read-only):
%   unit(+Name, -Status, -Invocation, -Priority)
%       Status is ok | invalid (a name never answers for a shadowed unit);
%       Invocation is automatic | explicit_user.
%   closure(+Name, -Closure)
%       deps(Deps): every unit Name transitively requires, dependencies
%       first; missing(Dep): a required unit does not exist;
%       cycle(Path): the requires graph loops through Path;
%       conflict(Dep): Dep conflicts with Name or with another unit Name
%       requires, so they never load together.
%   conflicting(+As, +Bs, -B)  some unit in As and the unit B in Bs conflict
%                              (either declares the other in conflicts).
%   superseded_by(+A, +Bs, -B) the unit B in Bs declares that it supersedes A.
%
% Facts about the request (Go-native, trusted host input and the task):
%   explicit(+Req, +Name)   the host selected Name (--select).
%   mandatory(+Req, +Name)  the host policy makes Name mandatory.
%   denied(+Req, +Name)     the host denied Name (--deny, policy deny).
%   negated(+Req, +Name)    the task says "do not use Name" or the like
%                           (retrieval's negation reading, docs/how-a-compile-decides.md rule 5).
%   tokens(+Req, +Names, -N) body tokens of the units Names, summed, under
%                           the request's tokenizer.
%   reference_tokens(+Req, +Names, -N) the tokens of the units Names
%                           rendered as references instead (name,
%                           description, the path of SKILL.md and a line
%                           telling the model to read it before acting),
%                           summed.
%   ambiguity_mode(+Req, -Mode)  ask | top | all, from the host policy.
%
% The facts rules 9-11 compare, each computed by Go per request over the
% candidates' evidence (retrieval's evidence, residual, breadth and relate;
% an evidence item is one matched field, phrase, bigram, object or action,
% with the task terms, stemmed, it rests on and its positive or negative
% score):
%   redundant(+Req, +A, +B) B would add almost nothing beside A: the
%                           residual of B beside A, the summed score of
%                           B's positive evidence items that rest on at
%                           least one task term none of A's positive items
%                           rests on, is less than 25% of B's score
%                           (redundantShare). B is lexical; A any candidate.
%   clauses_compared(+Req) the task was split into clauses (at commas,
%                           semicolons, sentence ends and "and", "then",
%                           "also", "plus") and each candidate's evidence
%                           weighed in each (retrieval's Problem.Apart),
%                           so apart/3 says something (rule 11).
%   same_object(+Req, +A, +B) the task names an object that both A and B
%                           declare (object triggers, Skill-Router objects,
%                           and object words in their names and aliases).
%   apart(+Req, +A, +B)     B answers a clause of the task at least as well
%                           as A (retrieval's Problem.Apart): "write a readme
%                           and draft the marketing blurb" asks for two
%                           things, whatever objects the two units share.
%   apart(+Req, +A, +B, -W) as apart/3, and W is the score (x 1000) of
%                           B's evidence in that clause.
%   own_part(+Req, +A, +B, -W) B has a part of the task of its own
%                           beside A: its positive evidence (not on words
%                           found only in a pasted log, config, code,
%                           attached file or document, which is what the
%                           task is about) rests on at
%                           least two task words A's does not cover (two
%                           said as one of B's word pairs, and no third,
%                           are one), or on
%                           a phrase of several words B declares or quotes
%                           (its name, an alias, a trigger, a quoted
%                           phrase) one of whose words A's does not cover;
%                           W is the score (x 1000) of that evidence, what
%                           B would score on that part alone (retrieval's
%                           Problem.OwnPart; a word A's evidence rests on
%                           only in passing is not covered when the task
%                           states B's name in a clause B answers, and the
%                           same holds for redundant/3). Fails for a pair without
%                           one; more than any score for every pair when
%                           the request does not compute it.
%   breadth(+Req, +Name, -B) how many distinct task terms Name's positive
%                           evidence items rest on.
%   material(+Req, +Name, -M) the score (x 1000) of Name's positive
%                           evidence found only in material the user
%                           pasted (retrieval's Problem.Material); fails
%                           for a name with none.
%   material_floor(+Req, -F) 1000: what a best candidate's evidence from
%                           pasted material must reach to confirm it
%                           without a margin (rule 10's confirmed clause;
%                           MaterialFloor 1.0).
%   states_own_words(+Req, +Name) Name's positive evidence rests on its
%                           own words for when it is wanted: a trigger it
%                           declares, a phrase its description or
%                           when_to_use quotes, a word of its "Use when"
%                           clauses (rule 10's own_words clause).
%   whole_task(+Req, +Name) Name's positive evidence rests on every
%                           content word of the task, known to the catalog
%                           or not ("make a dockerfile"): the task says
%                           nothing Name does not answer (rule 10).
%   threshold(+Req, -T)     4500: the score a lexical candidate needs to be
%                           selected on its own (Threshold 4.5).
%   support_floor(+Req, -F) 2000: the score a candidate below the threshold
%                           needs to be selected as a clear best, or beside
%                           a stronger kept candidate (SupportFloor 2.0).
%   pasted(+Req)            some candidate has evidence found only in
%                           material the user pasted (material/3): a
%                           request without a paste pays one call for
%                           rule 10's pasted_only clause.
%   candidate_floor(+Req, -F) 1500: the score a unit needs to be a
%                           lexical candidate at all (CandidateFloor 1.5);
%                           rule 10's pasted_only clause holds what the
%                           instruction alone gives a candidate to it.
%   tie_ratio(+Req, -R)     75: a rival scoring at least R percent of the
%                           best is close enough to make a tie (TieRatio).
%   threshold_margin(+Req, -M) 175: the margin, in percent of its
%                           runner-up's score, a best candidate just below
%                           the threshold needs (needed_margin/3;
%                           ThresholdMargin 1.75).
%   margin_ratio(+Req, -M)  2: a clear best at the support floor scores at
%                           least M times its runner-up (MarginRatio).
%   min_breadth(+Req, -B)   2: how many distinct task words a candidate's
%                           evidence rests on to be grounded without a
%                           margin (MinBreadth).
%   withdrawn(+Req, -W)     the best score of a unit above the candidate
%                           floor that eligible/3 rejected (it can never be
%                           selected from this task) and that does not
%                           require the best lexical candidate (a wrapper
%                           that runs it drew the task's words for it); 0
%                           when there is none.
%                           Rule 10 measures a margin against it too. A
%                           negated unit counts without the evidence the
%                           negation's own words gave it (retrieval masks
%                           them).
%   unavailable(+Req, -U)   u(Name, W): the explicit-user-only unit that
%                           eligible/3 rejected with the best score W (it
%                           activates only when the host selects it, a
%                           user's /name), which requires no lexical
%                           candidate; none when there is none. own_part/4
%                           and apart/4 answer for it as A (rule 10,
%                           clause explicit_only_words).
%   crowd(+Req, -C)         the score of the unit ranked fifth on the task
%                           (CrowdRank), whether it can be selected or not;
%                           0 when fewer units have evidence.
%   crowd_bar(+Req, -B)     what a candidate beside a stronger kept one
%                           must score to stand out of the crowd: 1.8
%                           times crowd/2 (CrowdRatio); 0 with no crowd.
%   confidence(+Req, +Name, -C) the lexical candidate Name's confidence
%                           (retrieval's Problem.Confidence, in [0, 1], to
%                           three decimals) x 1000.
%   explained(+Req, +Name, -E) the share of the task's informative weight
%                           the lexical candidate Name's evidence rests on
%                           (retrieval's Problem.Explained, in [0, 1], to
%                           three decimals) x 1000; 1000 for every name
%                           when the request does not compute it.
%   tie_task_share(+Req, -S) 400: the share x 1000 of the task one of a
%                           tie's units must explain for the tie to be
%                           asked about (rule 9; TieTaskShare 0.4).
%   min_confidence(+Req, -M) the host policy's min_confidence x 1000,
%                           rounded up (so C >= M exactly when the
%                           confidence reaches it); 0 when unset (rule 10,
%                           below_min_confidence).
%   intent_confidence(+Req, -I) 700: the confidence each part of a task
%                           that asks for several things needs (rule 10,
%                           intents; IntentConfidence 0.7).
%   explains_more(+Req, +A, +B) A's evidence explains at least 1.05 times
%                           (TieExplained) the share of the task's
%                           informative weight B's explains, each share
%                           scaled by how much of the unit's name the
%                           task states when it states part of both
%                           (Problem.ExplainsMore; rule 9).
%   judged(+Req)            the lexical candidates passed eligible/3 in this
%                           request already, so decide/4 does not judge
%                           them again (one policy step per rule saved).
%
% List helpers, in Go because the interpreter lacks them or because one Go
% step beats one interpreter step per element:
%   memberchk(?X, +List)
%   subtract(+Xs, +Ys, -Zs)       of lists of atoms; keeps the order of Xs.
%   append(+Lists, -List)         concatenates a list of lists.
%   names(+Cands, -Names)         the names of cand/3 terms.
%   lexical_scores(+Cands, -Scores) the scores of the lexical ones, highest
%                                 first.
%   values(+Pairs, -Values)       the values of Key-Value pairs.
%
% Every native checks its inputs (+) as ISO builtins do: an unbound one
% raises instantiation_error, one of the wrong type (a name where the
% request goes, a non-list, a list holding a non-atom) raises type_error,
% and the compile fails with it. None answers false for a miscall, which
% here would read as "not denied" and select what the host denied.
%
% Entry points:
%   eligible(+Req, +Candidates, -Rejected)
%     Rules 2-6 alone: reject(Name, Reason, Because) for every candidate
%     that can never be selected in this request. Go asks it, best first,
%     before capping the lexical candidates, so that a unit the task
%     negates, the host denies, that is explicit-user-only or whose closure
%     fails never takes a candidate's place; its first call also holds the
%     units the request names (denied or negated) at any score, so these
%     get their reason from this policy, never from Go
%     (internal/retrieval/problem.go, Index.Retrieve).
%   decide(+Req, +Candidates, +Budget, -Decisions)
%     Candidates: cand(Name, Origin, Score), Origin is mandatory | explicit
%       | lexical, Score an integer (evidence x 1000); the lexical ones best
%       first (rules 9 and 10 read the first as the best, as Go ranked it).
%     Decisions: select(Name, Reason, Because) in admission order
%       (dependencies before their dependents), then reject(Name, Reason,
%       Because) for every candidate that was not admitted.

eligible(Req, Cands, NotEligible) :- eligibility(fresh, Cands, Req, _, NotEligible).

decide(Req, Cands, Budget, Decisions) :-
    lexical_judged(Req, J),
    eligibility(J, Cands, Req, Ok, NotEligible),            % rules 2-6
    names(Ok, OkNames),
    reading(Req, Cands, I),                                 % rules 9-10
    settle(Req, x(Cands, I), Ok, OkNames, [], Budget, Selected, Rejected0), % rules 7-12
    append([NotEligible, Rejected0], Rejected),
    append(Selected, Rejected, Decisions).

% settle(+Req, +X, +Ok, +Powers, +Pins, +Budget, -Selected, -Rejected):
% rules 7-12 over the eligible candidates Ok, with Cands the request's
% candidates as Go gave them, best lexical first, which rules 9
% and 10 read as a whole, and its reading (reading/3), in x(Cands, I). Supersession (rule 7) and coverage
% (rule 11) take effect only from a unit that is admitted. Powers, the units
% that may supersede or cover, starts as every eligible candidate. When a
% rejection cites a superseder or coverer that ended up not admitted
% (conflict, over_budget, held_back, ...), that unit loses the power, keeps
% the rejection it got (Pins), and the candidates are judged again: so a
% unit that lost its power is not admitted later as a candidate beside a
% unit it supersedes or covers (only as another unit's dependency), and
% every superseded or covered rejection names a selected unit. Powers only shrinks, so this ends after at most one round
% per candidate (at most eight lexical ones plus the host's).
settle(Req, X, Ok, Powers, Pins, Budget, Selected, Rejected) :-
    admission(Req, X, Ok, Powers, Pins, Budget, Selected0, Rejected0, Cited),
    settled(Req, X, Ok, Powers, Pins, Budget, Selected0, Rejected0, Cited, Selected, Rejected).

% settled/11 takes the round's outcome as it is, or starts the next round; a
% round is judged once (no backtracking into admission/9). Cited holds the
% round's rejections that may cite a unit by its power (superseded,
% covered, and the pinned ones), in the order of Rejected: no other
% rejection is superseded or covered, so the search skips them.
settled(Req, X, Ok, Powers, Pins, Budget, Selected0, Rejected0, Cited, Selected, Rejected) :-
    unadmitted_cause(Cited, Selected0, By), !,
    memberchk(reject(By, Why, Because), Rejected0),
    subtract(Powers, [By], Powers1),
    settle(Req, X, Ok, Powers1, [reject(By, Why, Because)|Pins], Budget, Selected, Rejected).
settled(_, _, _, _, _, _, Selected, Rejected, _, Selected, Rejected).

admission(Req, X, Ok, Powers, Pins, Budget, Selected, Rejected, Cited) :-
    superseding(Ok, Powers, x(Req, Ok), Live, Superseded),  % rule 7
    rank(Live, Ranked0),                                    % rule 8
    unpasted(Req, Ranked0, Ranked, Pasted),                 % rule 10
    ambiguity(Req, X, Ranked, Clear, Tied, Ambiguous, Tie), % rule 9
    strength(Req, X, Clear, Tied, Strong, Weak, Whys),  % rule 10
    redundancy(Req, Strong, Tied, Powers, Distinct, Covered), % rule 11
    hold(Tie, Distinct, Admissible, Held),                  % rule 9, ask
    unpin(Admissible, Pins, Packable0, Pinned),             % settle/8
    pinned_riders(Pinned, Whys, Packable0, Packable, Riders), % rule 12
    packed(Packable, Req, Budget, Whys, Selected, Unpacked), % rule 12
    append([Superseded, Pasted, Ambiguous, Weak, Covered, Held, Pinned, Riders, Unpacked], Rejected),
    append([Superseded, Covered, Pinned], Cited).

% unpasted(+Req, +Ranked, -Kept, -Rejected): rule 10's pasted_only
% clause, asked before the others. A lexical candidate whose evidence
% rests only on what the user pasted (material/3 is all of its score) is
% no candidate when the instruction itself gives another lexical
% candidate evidence reaching the support floor: the request asks for
% that one, and the paste is what it is about ("answer this email for
% me" above a mail about an audit). The instruction points at a
% candidate when what it alone gives it (its score less its material/3)
% reaches the candidate floor. The pasted-only candidate is dropped, and
% takes no part in the ties and margins of rules 9 and 10. A request
% whose instruction points nowhere ("what is this?") leaves the material
% to route.
unpasted(Req, Ranked, Kept, Rejected) :-
    pasted(Req),
    candidate_floor(Req, CF),
    instructed(Ranked, Req, CF), !,
    threshold(Req, T),
    drop_pasted(Ranked, Req, T, Kept, Rejected).
unpasted(_, Ranked, Ranked, []).

instructed([cand(N, lexical, S)|_], Req, CF) :- instruction_score(Req, N, S, I), I >= CF, !.
instructed([_|Cs], Req, CF) :- instructed(Cs, Req, CF).

instruction_score(Req, N, S, I) :- material(Req, N, M), !, I is S - M.
instruction_score(_, _, S, S).

drop_pasted([], _, _, [], []).
drop_pasted([cand(N, lexical, S)|Cs], Req, T, Kept, Rs) :-
    material(Req, N, M), M >= S, !,
    Rs = [reject(N, below_threshold, because(strength, [clause(pasted_only), score(S), threshold(T), material(M)]))|Rs1],
    drop_pasted(Cs, Req, T, Kept, Rs1).
drop_pasted([C|Cs], Req, T, [C|Kept], Rs) :- drop_pasted(Cs, Req, T, Kept, Rs).

% unpin(+Cands, +Pins, -Rest, -Pinned): a candidate that lost its power to
% supersede or cover keeps the rejection it had then.
unpin(Cands, [], Cands, []) :- !.
unpin([], _, [], []).
unpin([cand(N, _, _)|Cs], Pins, Rest, [reject(N, Why, Because)|Rs]) :-
    memberchk(reject(N, Why, Because), Pins), !,
    unpin(Cs, Pins, Rest, Rs).
unpin([C|Cs], Pins, [C|Rest], Rs) :- unpin(Cs, Pins, Rest, Rs).

% pinned_riders(+Pinned, +Whys, +Cands, -Rest, -Rejected): a candidate
% rule 10 kept only beside a unit that keeps its rejection from an earlier
% round (it was not admitted) leaves with it, as in pack/8.
pinned_riders([], _, Cs, Cs, []) :- !.
pinned_riders([reject(K, _, _)|Ps], Whys, Cs, Rest, Rs) :-
    riders(K, Whys, Cs, Cs1, Rs1),
    pinned_riders(Ps, Whys, Cs1, Rest, Rs2),
    append([Rs1, Rs2], Rs).

% unadmitted_cause(+Rejected, +Selected, -By): some candidate was rejected as
% superseded or covered by By, and By was not admitted (as itself or as a
% dependency). A superseded or covered rejection names By first among its
% facts.
unadmitted_cause([reject(_, Why, Because)|_], Selected, By) :-
    power(Why, Because, By), \+ memberchk(select(By, _, _), Selected), !.
unadmitted_cause([_|Rs], Selected, By) :- unadmitted_cause(Rs, Selected, By).

% power(+Why, +Because, -By): a rejection of this reason cites By by its
% power to supersede or cover.
power(superseded, because(_, [by(By)|_]), By).
power(covered, because(_, [by(By)|_]), By).

% reading(+Req, +Cands, -I): what rules 9 and 10 read of the request's
% candidates as a whole, once per decide/4 (one clause per outcome, the
% test that fails for most requests first):
%   gated(B)   the host set a min_confidence and the best lexical
%              candidate B (the first in Cands: Go gives them best first)
%              has a confidence below it (rule 10, below_min_confidence;
%              rule 9 then asks about no tie);
%   intents(Low, W)  else, the task asks for several things (rule 10,
%              intents): two or more lexical candidates (the parts) reach
%              the support floor, each with confidence at least
%              intent_confidence/2; no two of them compete (redundant or
%              same_object, either way); and no other lexical candidate
%              scores as much as the weakest of them, W scoring Low. The
%              best is tested first: unless it is a part, it scores at
%              least the weakest part and is not one, so there are none;
%   none       else.
reading(Req, Cands, I) :-
    min_confidence(Req, M), 0 < M,
    first_lexical(Cands, cand(B, _, _)),
    confidence(Req, B, C), C < M, !,
    I = gated(B).
reading(Req, Cands, I) :-
    first_lexical(Cands, cand(B, _, SB)),
    support_floor(Req, F), SB >= F,
    intent_confidence(Req, IC),
    confidence(Req, B, CB), CB >= IC,
    parts(Cands, Req, F, IC, Parts),
    Parts = [cand(W0, _, S0), _|_],
    apart(Parts, Req),
    weakest(Parts, W0, S0, W, Low),
    names(Parts, Names),
    \+ outsider(Cands, Names, Low), !,
    I = intents(Low, W).
reading(_, _, none).

parts([], _, _, _, []).
parts([cand(N, lexical, S)|Cs], Req, F, IC, Ps) :-
    S >= F, confidence(Req, N, C), C >= IC, !,
    Ps = [cand(N, lexical, S)|Ps1],
    parts(Cs, Req, F, IC, Ps1).
parts([_|Cs], Req, F, IC, Ps) :- parts(Cs, Req, F, IC, Ps).

apart([], _).
apart([cand(A, _, _)|Ps], Req) :- \+ competes_with(Ps, Req, A), apart(Ps, Req).

competes_with([cand(B, _, _)|_], Req, A) :- pair_competes(Req, A, B), !.
competes_with([_|Ps], Req, A) :- competes_with(Ps, Req, A).

pair_competes(Req, A, B) :- redundant(Req, A, B), !.
pair_competes(Req, A, B) :- redundant(Req, B, A), !.
pair_competes(Req, A, B) :- same_object(Req, A, B), !.
pair_competes(Req, A, B) :- same_object(Req, B, A).

% weakest(+Parts, +W0, +S0, -W, -Low): the first of the lowest-scoring
% parts.
weakest([], W, S, W, S).
weakest([cand(N, _, S)|Ps], _, S0, W, Low) :- S < S0, !, weakest(Ps, N, S, W, Low).
weakest([_|Ps], W0, S0, W, Low) :- weakest(Ps, W0, S0, W, Low).

outsider([cand(N, lexical, S)|_], Names, Low) :- S >= Low, \+ memberchk(N, Names), !.
outsider([_|Cs], Names, Low) :- outsider(Cs, Names, Low).

% ---------------------------------------------------------------------------
% Rules 2-6: a candidate must be eligible on its own and through its closure.
% (Rule 1, evidence, is computed in Go: see internal/retrieval/score.go and
% internal/retrieval/problem.go.)

% The first argument is judged when Go already asked eligible/3 about the
% lexical candidates of this request (judged/1): only the host's are judged
% again. Else it is fresh and every candidate is judged. (It comes first so
% that, fresh, the judged clause fails before binding anything.)
eligibility(_, [], _, [], []).
eligibility(judged, [C|Cs], Req, [C|Ok], Rejected) :-
    C = cand(_, lexical, _), !,
    eligibility(judged, Cs, Req, Ok, Rejected).
eligibility(J, [C|Cs], Req, Ok, Rejected) :-
    verdict(Req, C, V),
    sort_verdict(V, C, Ok, Rejected, Ok1, Rejected1),
    eligibility(J, Cs, Req, Ok1, Rejected1).

lexical_judged(Req, judged) :- judged(Req), !.
lexical_judged(_, fresh).

sort_verdict(ok, C, [C|Ok], Rejected, Ok, Rejected) :- !.
sort_verdict(R, _, Ok, [R|Rejected], Ok, Rejected).

% The unit's standing is looked up once; each rule below is one clause.
% (The interpreter has no clause indexing and binds every variable of a
% head it tries, so each clause tests first and builds its rejection
% after the cut.)
verdict(Req, cand(N, O, _), V) :-
    unit(N, Status, Invocation, _),
    judge(Req, N, O, Status, Invocation, V).

% Rule 2 (deny): a unit the host denied never activates, whatever asked for it.
judge(Req, N, _, _, _, V) :- denied(Req, N), !,
    V = reject(N, denied, because(deny, [])).
% Rule 3 (standing): only units in good standing activate. A shadowed unit
% never reaches the policy (its name answers for the unit that shadows
% it), so invalid is the only standing judged here.
judge(_, N, _, invalid, _, V) :- !,
    V = reject(N, invalid, because(standing, [])).
% Rule 4 (explicit-user-only): such a unit activates only by a host
% selection (origin explicit) or by a task that opens by invoking it as a
% command, "/name" (origin invoked: Go reads it, unless the host policy
% says invocation: host). Words naming it ("use the name skill", "$name",
% a "/name" further on) are evidence, never selection.
judge(_, N, lexical, _, explicit_user, V) :- !,
    V = reject(N, explicit_only, because(explicit_user_only, [])).
% Rule 5 (negation): "do not use X" in the task suppresses lexical
% activation of X, and only that. Explicit and mandatory selection are host
% decisions and beat task text, and so do their closures (Rule 6).
judge(Req, N, lexical, _, _, V) :- negated(Req, N), !,
    V = reject(N, negated, because(negation, [])).
% Rule 6 (dependencies fail closed): a unit whose closure has a missing unit,
% a cycle, a unit that may not activate, or a conflict inside it is
% rejected with that reason.
judge(Req, N, O, _, _, V) :- closure(N, C), closure_verdict(C, Req, N, O, V).

% closure_verdict(+Closure, +Req, +N, +Origin, -V): the closure's outcome
% comes first, so a clause for another outcome fails before binding
% anything.
closure_verdict(deps(Ds), Req, N, O, V) :-
    blocked_dependencies(Ds, Req, O, D, Why), !,
    V = reject(N, dependency_rejected, because(dependencies, [dependency(D, Why)])).
closure_verdict(deps(_), _, _, _, ok) :- !.
closure_verdict(missing(D), _, N, _, V) :- !,
    V = reject(N, missing_dependency, because(dependencies, [missing(D)])).
closure_verdict(cycle(Path), _, N, _, V) :- !,
    V = reject(N, dependency_cycle, because(dependencies, [path(Path)])).
closure_verdict(conflict(D), _, N, _, V) :-
    V = reject(N, dependency_rejected, because(dependencies, [dependency(D, conflict)])).

blocked_dependencies([D|_], Req, O, D, Why) :- blocked_dependency(Req, O, D, Why), !.
blocked_dependencies([_|Ds], Req, O, D, Why) :- blocked_dependencies(Ds, Req, O, D, Why).

% A dependency is pulled in by its dependent, never selected on its own
% evidence, so it must be able to activate in this request. Negation is
% task text: it suppresses lexical activation only, so it blocks the
% closure of a lexical candidate, never the closure of a host selection or
% a mandatory unit, which the host trusts whole (Go explains the override).
blocked_dependency(Req, _, D, denied) :- denied(Req, D), !.
blocked_dependency(_, _, D, invalid) :- unit(D, invalid, _, _), !.
blocked_dependency(Req, _, D, explicit_only) :-
    unit(D, _, explicit_user, _), \+ explicit(Req, D), !.
blocked_dependency(Req, lexical, D, negated) :-
    negated(Req, D), \+ explicit(Req, D), \+ mandatory(Req, D), !.

% ---------------------------------------------------------------------------
% Rule 7 (supersedes): a lexical candidate superseded by another eligible
% candidate that may still supersede (Powers, see settle/8: one that was
% not admitted may not) is rejected, when the superseder stands beside it:
% a host selection or mandatory unit, or a lexical candidate scoring at
% least the candidate's score over the margin ratio. A skill declares
% whom it supersedes in its own metadata, and a newer version draws about
% the words of the one it replaces; one that draws a fraction of them is
% no replacement for what the task asks ("use the deploy skill" scored
% deploy 9.65 and a skill declaring that it supersedes deploy 3.51, which
% took the task alone). Host selections are never superseded.

% superseding/5 walks the candidates Ok with X = x(Req, Ok), which only a
% candidate some unit supersedes reads (the interpreter pays a binding
% per head variable, so the common clauses get few).
superseding([], _, _, [], []).
superseding([C|Cs], Names, X, Live, Rejected) :-
    superseded(C, Names, X, R), !,
    Rejected = [R|Rejected1],
    superseding(Cs, Names, X, Live, Rejected1).
superseding([C|Cs], Names, X, [C|Live], Rejected) :-
    superseding(Cs, Names, X, Live, Rejected).

superseded(cand(N, lexical, _), Names, x(Req, Ok), R) :-
    superseded_by(N, Names, B),
    memberchk(cand(N, lexical, S), Ok),
    superseder(B, N, S, Req, Ok, Names, By),
    R = reject(N, superseded, because(supersedes, [by(By)])).

% superseder(+B, +N, +S, +Req, +Ok, +Names, -By): By is B, which
% supersedes N, scoring S, when it stands beside N (stands_beside/4), else
% the next unit among Names that supersedes N and does.
superseder(B, _, S, Req, Ok, _, B) :- stands_beside(B, S, Req, Ok), !.
superseder(B, N, S, Req, Ok, Names, By) :-
    subtract(Names, [B], Names1),
    superseded_by(N, Names1, B1),
    superseder(B1, N, S, Req, Ok, Names1, By).

stands_beside(B, S, Req, Ok) :-
    memberchk(cand(B, O, SB), Ok),
    comparable(O, SB, S, Req).

% comparable(+Origin, +SB, +S, +Req): a host selection or mandatory unit
% always is; a lexical one when SB times the margin ratio reaches S.
comparable(lexical, SB, S, Req) :- !, margin_ratio(Req, M), SB * M >= S.
comparable(_, _, _, _).

% ---------------------------------------------------------------------------
% Rule 8 (order): host-mandatory units first, then explicit selections,
% then the unit the task invokes (a host's choice outranks a task's, so a
% task never makes one fail), then higher priority, then higher evidence
% score, then name.

rank(Cands, Ranked) :-
    keyed(Cands, Keyed),
    keysort(Keyed, Sorted),
    values(Sorted, Ranked).

keyed([], []).
keyed([C|Cs], Keyed) :-
    C = cand(N, O, S),
    origin_rank(O, R),
    unit(N, _, _, P),
    NP is -P,
    NS is -S,
    Keyed = [k(R, NP, NS, N)-C|Ks],
    keyed(Cs, Ks).

origin_rank(mandatory, 0).
origin_rank(explicit, 1).
origin_rank(invoked, 2).
origin_rank(lexical, 3).

% ---------------------------------------------------------------------------
% Rule 9 (ambiguity): the best lexical candidate has rivals when another
% lexical candidate scores within the tie ratio of it and competes with it:
% the task names an object both declare and the rival answers no clause of
% its own (apart), or the rival rests on the same task
% words (redundant) and the best is grounded: its evidence rests on at least
% two task words, or reaches the threshold. One shared incidental word is no
% tie, as it is no margin in Rule 10; a conflict alone is no tie either (two
% conflicting units may answer different parts of one task; Rule 12 settles
% them). A rival is no tie either when the best explains more
% (unless_clear/7: the best explains more than every rival within the tie
% ratio, so only a rival scoring as much as the best still ties), and no
% tie is asked about when rule 10 gates the task (below_min_confidence). A best candidate below the support floor could not be selected even
% with no rival, so its ties are no question worth asking: Rule 10 rejects
% them all. Otherwise the task is too close to call, and the host's mode
% decides: ask (the default) rejects the best and its rivals as ambiguous so
% the host can ask the user, and then selects no lexical unit at all: every
% other lexical candidate that would have been admitted is held back
% (held_back) until the host settles the tie, so an ambiguous answer never
% carries a block chosen from the task. Host selections and mandatory units
% (with their closures) are still selected. top keeps the best; all keeps
% them all. Host selections never take part in a tie.

% Tied lists the candidates a tie kept (top and all modes): a tie is
% evidence enough, so Rule 10 does not hold them to the threshold. Tie is
% tie(T) when the host is asked about T and its rivals, else no_tie.
ambiguity(Req, x(_, I), Ranked, Clear, [T|Rivals], Rejected, Tie) :-
    best_lexical(Ranked, Top),
    Top = cand(T, _, ST),
    support_floor(Req, F), ST >= F,
    tie_ratio(Req, R),
    rivals(Req, I, R, T, ST, Ranked, Rivals1),
    Rivals1 \== [],
    ungated(I),
    unless_clear(Req, I, T, ST, Ranked, Rivals1, Rivals2),
    Rivals2 \== [],
    loadable(Ranked, T, Rivals2, Rivals),
    Rivals \== [],
    explains_task(Req, ST, [T|Rivals]), !,
    ambiguity_mode(Req, Mode),
    resolve_tie(Mode, Top, Rivals, Ranked, Clear, Rejected),
    asked(Mode, T, Tie).
ambiguity(_, _, Ranked, Ranked, [], [], no_tie).

% loadable(+Ranked, +T, +Rivals0, -Rivals): a tie is asked about only
% among units that can load: a unit whose group conflicts with the group
% of a host selection or a mandatory unit loses to it in rule 12
% whatever the host answers (those rank first, and are admitted or fail
% the compile). Such a best ties with no one (a lookalike of it is no
% answer of its own, rule 10), and such a rival is left out of the tie.
% A request without host candidates (they come first in Ranked, rule 8)
% pays one clause, and only once a tie was found.
loadable(Ranked, T, Rivals0, Rivals) :-
    host_groups(Ranked, Hosts),
    loadable_rivals(Hosts, T, Rivals0, Rivals).

loadable_rivals([], _, Rivals, Rivals) :- !.
loadable_rivals(Hosts, T, _, []) :- doomed(T, Hosts), !.
loadable_rivals(Hosts, _, Rivals0, Rivals) :- exclude_doomed(Rivals0, Hosts, Rivals).

exclude_doomed([], _, []).
exclude_doomed([N|Ns], Hosts, Rest) :- doomed(N, Hosts), !, exclude_doomed(Ns, Hosts, Rest).
exclude_doomed([N|Ns], Hosts, [N|Rest]) :- exclude_doomed(Ns, Hosts, Rest).

doomed(N, Hosts) :- group(N, G), conflicting(G, Hosts, _).

host_groups([cand(N, O, _)|Cs], G) :- O \== lexical, !,
    group(N, G0),
    host_groups(Cs, G1),
    append(G0, G1, G).
host_groups(_, []).

% explains_task(+Req, +ST, +Names): a tie whose best, scoring ST, is
% below the threshold is asked about only when one of the tied units
% explains at least the tie_task_share of the task's informative weight
% (explained/3). Two weak units resting on one word of a task about
% something else ("write a thank-you note" for two writing skills) are no
% question for the host: the task asks for neither, and rule 10 decides
% as if there were no tie. A best that reaches the threshold would be
% selected but for its rivals: that tie is always asked about.
explains_task(Req, ST, _) :- threshold(Req, T), ST >= T, !.
explains_task(Req, _, Names) :-
    tie_task_share(Req, S),
    member_explains(Req, Names, S).

member_explains(Req, [N|_], S) :- explained(Req, N, E), E >= S, !.
member_explains(Req, [_|Ns], S) :- member_explains(Req, Ns, S).

% A gated request (rule 10, below_min_confidence) asks about no tie: its
% best is not selected even without rivals.
ungated(gated(_)) :- !, 1 < 0.
ungated(_).

asked(ask, T, tie(T)) :- !.
asked(_, _, no_tie).

% hold(+Tie, +Cands, -Admissible, -Held): with a question for the host, no
% lexical candidate goes on to packing.
hold(no_tie, Cands, Cands, []).
hold(tie(T), Cands, Admissible, Held) :- hold_lexical(Cands, T, Admissible, Held).

hold_lexical([], _, [], []).
hold_lexical([cand(N, lexical, _)|Cs], T, Admissible, [reject(N, held_back, because(ambiguity, [by(T)]))|Rs]) :- !,
    hold_lexical(Cs, T, Admissible, Rs).
hold_lexical([C|Cs], T, [C|Admissible], Rs) :- hold_lexical(Cs, T, Admissible, Rs).

first_lexical([cand(N, lexical, S)|_], cand(N, lexical, S)) :- !.
first_lexical([_|Cs], Top) :- first_lexical(Cs, Top).

% best_lexical(+Ranked, -Top): the lexical candidate with the highest
% score, the first in rank order among equals. Rank puts priority before
% score (rule 8), and priority orders admission, not evidence: a weak
% candidate that declares a high priority is not the best a tie is
% measured from (nor, in rule 10, the best a margin is). Most requests
% pay one comparison: their first lexical candidate is the best.
best_lexical(Ranked, Top) :-
    first_lexical(Ranked, Top0),
    lexical_scores(Ranked, [Max|_]),
    top_scoring(Top0, Max, Ranked, Top).

top_scoring(cand(N, O, Max), Max, _, cand(N, O, Max)) :- !.
top_scoring(_, Max, Ranked, cand(N, lexical, Max)) :- scoring(Ranked, [], Max, N).

% rivals(+Req, +I, +R, +T, +ST, +Ranked, -Rivals): the lexical candidates
% of Ranked that tie with the best, T scoring ST: each scores at least R
% percent of ST and competes with T (I, reading/3: see grounded/4).
rivals(_, _, _, _, _, [], []).
rivals(Req, I, R, T, ST, [cand(N, lexical, S)|Cs], Rivals) :-
    N \== T, S * 100 >= ST * R, competes(Req, I, ST, T, N), !,
    Rivals = [N|Ns],
    rivals(Req, I, R, T, ST, Cs, Ns).
rivals(Req, I, R, T, ST, [_|Cs], Ns) :- rivals(Req, I, R, T, ST, Cs, Ns).

% unless_clear(+Req, +I, +T, +ST, +Ranked, +Rivals0, -Rivals): a rival
% within the tie ratio is no tie when the best explains more
% (explains_more/3): when the best, T, explains more than each of its
% rivals within the tie ratio (Rivals0), only a rival scoring at least as
% much as the best ties (the ratio becomes 100). Near-duplicate units
% score close however plain the task is; what each explains of it does
% not. A candidate within the ratio that is no rival (it rests on other
% task words) has no say. Asked only once a rival within the ratio was
% found, so most requests never pay for it.
unless_clear(Req, I, T, ST, Ranked, Rivals0, Rivals) :-
    explains_more_each(Rivals0, Req, T), !,
    rivals(Req, I, 100, T, ST, Ranked, Rivals).
unless_clear(_, _, _, _, _, Rivals, Rivals).

explains_more_each([], _, _).
explains_more_each([N|Ns], Req, T) :-
    explains_more(Req, T, N),
    explains_more_each(Ns, Req, T).

competes(Req, _, _, A, B) :- same_object(Req, A, B), \+ apart(Req, A, B), !.
competes(Req, I, SA, A, B) :- redundant(Req, A, B), grounded(Req, I, SA, A).

% grounded(+Req, +I, +S, +N): a tie on the same words is worth asking about
% when the best, N scoring S, rests on at least two task words, or on one
% word strongly enough to be selected by it alone: it reaches the
% threshold, or, in a task that asks for several things (I is
% intents(Low, _), reading/3), the weakest part's score Low, which rule
% 10's intents clause keeps.
grounded(Req, _, _, N) :- breadth(Req, N, W), min_breadth(Req, B), W >= B, !.
grounded(Req, _, S, _) :- threshold(Req, T), S >= T, !.
grounded(_, intents(Low, _), S, _) :- S >= Low.

resolve_tie(ask, cand(T, _, _), Rivals, Ranked, Clear, Rejected) :-
    drop([T|Rivals], Ranked, Clear),
    ambiguous_all([T|Rivals], T, clause(ask), Rejected).
resolve_tie(top, cand(T, _, _), Rivals, Ranked, Clear, Rejected) :-
    drop(Rivals, Ranked, Clear),
    ambiguous_all(Rivals, T, clause(top), Rejected).
resolve_tie(all, _, _, Ranked, Ranked, []).

% Each rejection names the best of the tie (by) and the mode (clause).
ambiguous_all([], _, _, []).
ambiguous_all([N|Ns], Top, Clause, [reject(N, ambiguous, because(ambiguity, [by(Top), Clause]))|Rs]) :-
    ambiguous_all(Ns, Top, Clause, Rs).

drop(_, [], []).
drop(Names, [cand(N, _, _)|Cs], Kept) :- memberchk(N, Names), !, drop(Names, Cs, Kept).
drop(Names, [C|Cs], [C|Kept]) :- drop(Names, Cs, Kept).

% Rule 10 (strength): a lexical candidate below the threshold is not
% selected on its own, unless it is the best one, above the support floor,
% and at least twice as strong as the runner-up (a clear margin over a rival
% is evidence too), or a stronger one is already kept. Other weak candidates
% were put before the policy only to reveal a tie. The runner-up may be a
% unit that can never be selected (withdrawn/2): a unit the task negates or
% the host denies still drew the task's words, so taking it away leaves the
% weak candidate as weak as it was, with no margin over nothing.
%
% Its clauses, each named in the decision (clause(C)) with what it compared:
% first, when the best lexical candidate's confidence is below the host's
% min_confidence, every lexical candidate is dropped (below_min_confidence,
% by(Best)); else a lexical candidate is kept when it reaches the threshold
% (above_threshold; beside a stronger kept one, only with a part of the
% task of its own, else no_own_part, and out of the task's crowd, else
% in_crowd) or a tie kept it (tied); below the support floor it is
% dropped (below_support_floor); between the two, the best candidate is
% kept with a margin of two over its runner-up (margin), or without one
% when it rests on at least two task words, one of them its own trigger
% words, and the runner-up on one word and none of its own (own_words),
% or when the material pasted with the task confirms it (confirmed),
% or, with no runner-up, when its evidence rests on at least two task
% words (sole);
% failing that, any candidate is kept beside a stronger one already kept
% (secondary), or, in a task that asks for several things (reading/3), as
% one of them (intents, by(Weakest)), else dropped: the best for no_margin
% or one_word, another as not_best.
% Whatever kept it, a candidate is dropped (explicit_only_words) when an
% explicit-user-only unit the task's words belong to scores at least the
% margin ratio times it and it answers no part of the task of its own
% beside that unit (available/5).

strength(Req, x(_, gated(B)), Ranked, _, Strong, Rejected, []) :- !,
    threshold(Req, T),
    support_floor(Req, F),
    gated(Ranked, T, F, B, Strong, Rejected).
strength(Req, x(_, I), Ranked, Tied, Strong, Rejected, Whys) :-
    lexical_scores(Ranked, Scores),
    threshold(Req, T),
    support_floor(Req, F),
    unavailable(Req, U),
    strength(Ranked, T, F, w(Scores, Tied, Req, Ranked, U), I, Strong, Rejected, Whys).

% gated/6: below_min_confidence, the rule's first check. The best lexical
% candidate B's confidence is below the host's min_confidence, so every
% lexical candidate is dropped (by(B) names the best); host selections and
% mandatory units go on. Rule 9 asked about no tie in this request.
gated([], _, _, _, [], []).
gated([cand(N, lexical, S)|Cs], T, F, B, Strong, Rs) :- !,
    Rs = [reject(N, below_threshold, because(strength, [clause(below_min_confidence), score(S), threshold(T), support_floor(F), by(B)]))|Rs1],
    gated(Cs, T, F, B, Strong, Rs1).
gated([C|Cs], T, F, B, [C|Strong], Rs) :- gated(Cs, T, F, B, Strong, Rs).

% strength/8 walks the ranked candidates with the threshold T and the
% support floor F at hand; W holds what only the rarer clauses read:
% w(Scores, Tied, Req, Ranked, U), U the request's unavailable/2. (The interpreter has no clause indexing
% and pays one binding per head variable, so the common clauses get few
% arguments and the facts are built after the test that chose them.) Kept
% is none, or intents(Low, W) in a task that asks for several things
% (reading/3: the intents clause reads it where the rule would drop a
% candidate, so it costs the common case nothing), until a lexical
% candidate is kept, then kept(Name, Score) of the first one kept: once one is, a further one needs only the support floor,
% for tasks that ask for two things (Rule 11 then drops it if it adds
% nothing). Whys holds why(Name, Facts) for each lexical candidate kept:
% the clause that kept it and the numbers it compared.
strength([], _, _, _, _, [], [], []).
strength([cand(N, lexical, S)|Cs], T, F, W, Kept, Strong, Rs, Ws) :- !,
    weigh(S, T, F, N, W, Kept, Verdict0),
    available(Verdict0, S, N, W, Verdict),
    filed(Verdict, N, S, Kept, Kept1, Strong, Strong1, Rs, Rs1, Ws, Ws1),
    strength(Cs, T, F, W, Kept1, Strong1, Rs1, Ws1).
strength([C|Cs], T, F, W, Kept, [C|Strong], Rs, Ws) :-
    strength(Cs, T, F, W, Kept, Strong, Rs, Ws).

% filed/11 files a kept candidate (with its why) or a dropped one.
filed(keep(Fs), N, S, Kept, Kept1, Strong, Strong1, Rs, Rs, Ws, Ws1) :-
    Strong = [cand(N, lexical, S)|Strong1],
    Ws = [why(N, Fs)|Ws1],
    first_kept(Kept, N, S, Kept1).
filed(drop(Fs), N, _, Kept, Kept, Strong, Strong, Rs, Rs1, Ws, Ws) :-
    Rs = [reject(N, below_threshold, because(strength, Fs))|Rs1].

% available(+Verdict0, +S, +N, +W, -Verdict): a candidate N, scoring S,
% that rule 10 would keep is dropped (explicit_only_words) when an
% explicit-user-only unit U that may not be selected from the task scores
% at least the margin ratio times S, and N answers no part of the task of
% its own beside U (own_enough/5): the task's words are U's, which the
% user asks for by name (/U), and N is what is left of them, a
% coincidence ("undo my last commit" for a changelog skill that mentions
% commits, beside an explicit-only git-undo). A candidate a tie kept
% stays. A request without such a unit pays one clause.
available(V, _, _, w(_, _, _, _, none), V) :- !.
available(keep(_), S, N, w(_, Tied, Req, _, u(U, WU)), V) :-
    margin_ratio(Req, M), M * S =< WU,
    \+ memberchk(N, Tied),
    threshold(Req, T), support_floor(Req, F),
    \+ own_enough(Req, U, N, T, F), !,
    P is 100 * M,
    V = drop([clause(explicit_only_words), score(S), threshold(T), support_floor(F), margin(P), by(U), runner_up(U, WU)]).
available(V, _, _, _, V).

first_kept(none, N, S, kept(N, S)) :- !.
first_kept(intents(_, _), N, S, kept(N, S)) :- !.
first_kept(Kept, _, _, Kept).

% weigh(+S, +T, +F, +N, +W, +Kept, -Verdict): the cases of the rule, in
% order: above the threshold (beside a kept one, only when fit to stand
% beside it or kept by a tie: ambiguity all keeps every one, whatever part
% of the task each answers); kept by a tie; below the support floor; else
% in between, where the margin and the kept candidates decide. Verdict is
% keep(Facts) or drop(Facts); Facts name the clause and the numbers it
% compared.
weigh(S, T, F, N, w(_, Tied, Req, _, _), kept(K, KS), V) :- T =< S, \+ memberchk(N, Tied), unfit_beside(Req, K, KS, N, S, T, F, V), !.
weigh(S, T, _, _, _, _, V) :- T =< S, !,
    V = keep([clause(above_threshold), score(S), threshold(T)]).
weigh(S, T, _, N, w(_, Tied, _, _, _), _, V) :- memberchk(N, Tied), !,
    V = keep([clause(tied), score(S), threshold(T)]).
weigh(S, T, F, _, _, _, V) :- S < F, !,
    V = drop([clause(below_support_floor), score(S), threshold(T), support_floor(F)]).
weigh(S, T, F, N, W, Kept, V) :- mid(S, W, T, F, N, Kept, V).

% mid/7: the best lexical candidate (its score heads Scores) is judged
% against its runner-up; any other one is kept only beside a stronger
% kept candidate (secondary), and only on evidence of its own for a part
% of the task that one does not answer (own_part/3: at least two task
% words it does not cover, a word of its name, or a multi-word phrase of
% its own), else it is
% dropped (no_own_part), and only when it stands out of the task's crowd
% (in_crowd/7), else dropped (in_crowd); with no stronger one kept it is
% not the best.
% (S comes first, so that another candidate's clause fails at the head of
% Scores.)
mid(S, w([S|Rest], _, Req, Ranked, _), T, F, N, Kept, V) :- !,
    runner_up(Req, N, Ranked, Rest, RFact, R),
    clear(R, S, Req, N, Clear0),
    clearance(Clear0, Req, N, RFact, Clear1),
    confirmation(Clear1, Req, N, S, Ranked, Clear),
    needed_margin(Req, S, M),
    best(Clear, S, T, F, M, RFact, Kept, V).
mid(S, w(_, _, Req, _, _), T, F, N, kept(K, KS), V) :-
    unfit_beside(Req, K, KS, N, S, T, F, V), !.
mid(S, _, T, F, _, Kept, V) :-
    beside(Kept, S, T, F, [clause(not_best), score(S), threshold(T), support_floor(F)], V).

% unfit_beside(+Req, +K, +KS, +N, +S, +T, +F, -V): N, scoring S beside
% K, kept before it with KS, is dropped: it answers no part of the task of
% its own and is no peer of K (no_own_part), or it does not stand out of the task's crowd
% (in_crowd). Fails when N may stay.
unfit_beside(Req, K, KS, N, S, T, F, V) :- \+ own_enough(Req, K, N, T, F), \+ peer(Req, K, KS, N, S, T, F), !,
    own_fact(Req, K, N, O),
    V = drop([clause(no_own_part), score(S), threshold(T), support_floor(F), kept(K, KS)|O]).
unfit_beside(Req, K, KS, N, S, T, F, V) :- in_crowd(Req, K, N, S, T, C, B),
    V = drop([clause(in_crowd), score(S), threshold(T), support_floor(F), kept(K, KS), crowd(C, B)]).

% own_fact(+Req, +K, +N, -O): the facts no_own_part states of N's own
% part beside K: own_part(W), the weight of its evidence outside K's,
% when it has a part of its own at all, else none (its own evidence
% rests on one word at most, or on one pair of words it pairs itself).
own_fact(Req, K, N, [own_part(W)]) :- own_part(Req, K, N, W), !.
own_fact(_, _, _, []).

% own_enough(+Req, +K, +N, +T, +F): N answers a part of the task the kept
% K does not, with evidence that would make it a candidate on that part
% alone: its evidence on its own part (own_part/4) reaches the threshold
% T, or the support floor F when N answers a clause of the task at least
% as well as K with evidence that reaches F in that clause too (apart/4:
% the task asks for two things, one a sentence). One incidental word shared with the task never does: a long
% request or a pasted log shares a word with every skill.
own_enough(Req, K, N, T, _) :- own_part(Req, K, N, W), W >= T, !.
own_enough(Req, K, N, _, F) :- apart(Req, K, N, C), C >= F, own_part(Req, K, N, W), W >= F.

% peer(+Req, +K, +KS, +N, +S, +T, +F): N, scoring S at the threshold T
% or above beside K, kept with KS, is K's peer, not its echo: KS is at
% most the margin ratio times S, and N's evidence outside K's
% (own_part/4) reaches the support floor F. A task that asks for two
% things gives the skill of each about as much ("write the review
% comments, and tell me whether her migration is safe"); a skill that
% rides on a word or two of the other's request scores a fraction of it.
% Not in a task with pasted material (pasted/1), which shares words with
% every skill.
peer(Req, K, KS, N, S, T, F) :-
    T =< S,
    \+ pasted(Req),
    margin_ratio(Req, M),
    KS =< M * S,
    own_part(Req, K, N, W),
    W >= F.

% in_crowd(+Req, +K, +N, +S, +T, -C, -B): N, scoring S beside the
% stronger kept K, does not stand out of the task's crowd: S is below the
% bar B (crowd_bar/2), a multiple of C, the score of the unit ranked
% fifth on the task (crowd/2, whether it can be selected or not), and N
% answers no clause of the task of its own with evidence reaching the
% threshold T (apart/4: a task that asks for several things names each
% plainly). A long request or a pasted log shares words with many skills,
% and many reach the threshold on enough of them: what they score is what
% a skill scores on this task, in this catalog, without being asked for.
% With fewer units with evidence the crowd is 0 and nothing is in it.
in_crowd(Req, K, N, S, T, C, B) :-
    crowd_bar(Req, B),
    S < B,
    crowd(Req, C),
    \+ (apart(Req, K, N, W), W >= T).

% clear(+R, +S, +Req, +N, -Clear): the best, scoring S, against its
% runner-up, scoring R: a margin when S is at least needed/4 times R; with no
% runner-up at all (R is 0), sole when its evidence rests on at least two
% task words, else one_word. One incidental word is not a margin. Alone,
% a best whose evidence found only in pasted material (W) is at least what
% the instruction gives it is no clear best (material_alone): material
% routes on its own only past the threshold ("Help me write my
% self-review. Highlights: I led the Redis cache migration" asks for no
% Redis skill).
clear(R, S, Req, _, C) :- 0 < R, !, margin(Req, S, R, C).
clear(_, S, Req, N, material_alone(B, W)) :- material(Req, N, W), W >= S - W, !, breadth(Req, N, B).
clear(_, _, Req, N, C) :- breadth(Req, N, B), min_breadth(Req, Min), sole(B, Min, C).

margin(Req, S, R, margin) :- needed(Req, S, Num, Den), S * Den >= R * Num, !.
margin(_, _, _, no_margin).

% needed(+Req, +S, -Num, -Den): the margin a best candidate scoring S
% needs over its runner-up, as the ratio Num / Den: the margin ratio at
% the support floor, sliding down to the threshold margin at the
% threshold, where a candidate needs none. A fixed ratio made a cliff
% twice over: 1.99x abstained where 2x routed, and 4.49 needed 2x where
% 4.5 needed nothing.
needed(Req, S, Num, Den) :-
    margin_ratio(Req, M), threshold_margin(Req, MT),
    threshold(Req, T), support_floor(Req, F),
    Sc is max(F, min(T, S)),
    Num is 100 * M * (T - Sc) + MT * (Sc - F),
    Den is 100 * (T - F).

% needed_margin(+Req, +S, -P): needed/4 in whole percent, as the
% explanation states it.
needed_margin(Req, S, P) :- needed(Req, S, Num, Den), P is 100 * Num // Den.

% clearance(+Clear0, +Req, +N, +RFact, -Clear): a best N without a margin
% over its runner-up U is still clear (own_words(B)) when the task states
% N's own words for when it is wanted and N rests on B >= 2 task words,
% while U rests on one task word that is none of its own (own_words/4):
% the skill's own trigger outweighs a rival's single incidental word. A
% withdrawn runner-up gives no such clearance (it drew the task's words,
% and is not asked about here).
clearance(no_margin, Req, N, RFact, own_words(B)) :- own_words(Req, N, RFact, B), !.
clearance(no_margin, Req, N, RFact, outweighs) :- outweighs(Req, N, RFact), !.
clearance(one_word(B), Req, N, _, whole_task(B)) :- whole_task(Req, N), !.
clearance(C, _, _, _, C).

% outweighs(+Req, +N, +RFact): the runner-up U of RFact would add almost
% nothing beside N (redundant/3: every task word it rests on, N rests on
% too), while N has a part of the task of its own beside U (own_part/4)
% whose evidence reaches the support floor: the two compete for no word
% of the task, N only answers more of it.
outweighs(Req, N, runner_up(U, _)) :-
    redundant(Req, N, U),
    own_part(Req, U, N, W),
    support_floor(Req, F),
    W >= F.

% own_words(+Req, +N, +RFact, -B): N rests on B task words, at least the
% minimum breadth, its own words among them, while the runner-up U of
% RFact rests on one task word that is none of its own.
own_words(Req, N, runner_up(U, _), B) :-
    states_own_words(Req, N),
    \+ states_own_words(Req, U),
    breadth(Req, U, 1),
    breadth(Req, N, B),
    min_breadth(Req, Min),
    B >= Min.

% confirmation(+Clear0, +Req, +N, +S, +Ranked, -Clear): a best N without
% a margin over its runner-up is still clear (confirmed(W)) when the
% material the user pasted confirms it (confirmed/5).
confirmation(no_margin, Req, N, S, Ranked, confirmed(W)) :- confirmed(Req, N, S, Ranked, W), !.
confirmation(C, _, _, _, _, C).

% confirmed(+Req, +N, +S, +Ranked, -W): N, scoring S, has evidence W
% found only in pasted material (material/3) that reaches the material
% floor and is at least the margin ratio times that of every other
% candidate the instruction gives evidence (outmatched/5), and evidence
% from the instruction too (W < S): the log, trace or code the user
% pasted points at N, and at no rival nearly as much, while the
% instruction asks about it.
confirmed(Req, N, S, Ranked, W) :-
    material(Req, N, W),
    material_floor(Req, Fl),
    W >= Fl,
    W < S,
    margin_ratio(Req, M),
    \+ outmatched(Req, N, W, M, Ranked).

% outmatched(+Req, +N, +W, +M, +Ranked): another candidate that the
% instruction gives evidence too has material evidence of more than
% W / M. One resting only on the paste (its material is its score) is
% what the paste is about, no rival for what the instruction asks.
outmatched(Req, N, W, M, [cand(O, lexical, SO)|_]) :- O \== N, material(Req, O, MO), MO < SO, W < M * MO, !.
outmatched(Req, N, W, M, [_|Cs]) :- outmatched(Req, N, W, M, Cs).

sole(B, Min, sole(B)) :- B >= Min, !.
sole(B, _, one_word(B)).

best(margin, S, T, F, M, RFact, _, V) :- !,
    V = keep([clause(margin), score(S), threshold(T), support_floor(F), margin(M), RFact]).
best(sole(B), S, T, F, _, RFact, _, V) :- !,
    V = keep([clause(sole), score(S), threshold(T), support_floor(F), breadth(B), RFact]).
best(no_margin, S, T, F, M, RFact, Kept, V) :- !,
    beside(Kept, S, T, F, [clause(no_margin), score(S), threshold(T), support_floor(F), margin(M), RFact], V).
best(whole_task(B), S, T, F, _, RFact, _, V) :- !,
    V = keep([clause(whole_task), score(S), threshold(T), support_floor(F), breadth(B), RFact]).
best(confirmed(W), S, T, F, M, RFact, _, V) :- !,
    V = keep([clause(confirmed), score(S), threshold(T), support_floor(F), margin(M), material(W), RFact]).
best(outweighs, S, T, F, M, RFact, _, V) :- !,
    V = keep([clause(outweighs), score(S), threshold(T), support_floor(F), margin(M), RFact]).
best(own_words(B), S, T, F, M, RFact, _, V) :- !,
    V = keep([clause(own_words), score(S), threshold(T), support_floor(F), margin(M), breadth(B), RFact]).
best(material_alone(B, W), S, T, F, _, RFact, Kept, V) :- !,
    beside(Kept, S, T, F, [clause(material_alone), score(S), threshold(T), support_floor(F), breadth(B), material(W), RFact], V).
best(one_word(B), S, T, F, _, RFact, Kept, V) :-
    beside(Kept, S, T, F, [clause(one_word), score(S), threshold(T), support_floor(F), breadth(B), RFact], V).

% beside(+Kept, +S, +T, +F, +Weak, -V): a candidate between the support
% floor and the threshold that no other clause keeps is kept beside a
% stronger one already kept (secondary), else dropped for the reason Weak
% gives.
beside(kept(K, KS), S, T, F, _, V) :- !,
    V = keep([clause(secondary), score(S), threshold(T), support_floor(F), kept(K, KS)]).
beside(none, _, _, _, Weak, V) :- !, V = drop(Weak).
% The intents clause: in a task that asks for several things (Kept is
% still intents(Low, W), see strength/8), a part (it scores at least Low,
% the weakest part W's score) is kept as if the threshold were Low. It is
% asked only where the rule would drop the candidate, so a task that asks
% for one thing pays nothing for it.
beside(intents(Low, W), S, T, F, _, V) :- S >= Low, !,
    V = keep([clause(intents), score(S), threshold(T), support_floor(F), by(W)]).
beside(_, _, _, _, Weak, drop(Weak)).

% runner_up(+Req, +N, +Ranked, +Rest, -RFact, -R): R is the runner-up's
% score beside the best N, the next lexical score (Rest holds them,
% highest first) or the best withdrawn unit's, whichever is higher; 0
% when there is neither. RFact names it: runner_up(Name, R),
% withdrawn_runner_up(R) or no_runner_up.
runner_up(Req, _, _, [Next|_], withdrawn_runner_up(W), W) :- withdrawn(Req, W), Next < W, !.
runner_up(_, N, Ranked, [Next|_], runner_up(Name, Next), Next) :- !, scoring(Ranked, N, Next, Name).
runner_up(Req, _, _, [], withdrawn_runner_up(W), W) :- withdrawn(Req, W), 0 < W, !.
runner_up(_, _, _, [], no_runner_up, 0).

% scoring(+Ranked, +N, +S, -Name): the runner-up's name, the first lexical
% candidate in rank order other than the best N that scores S.
scoring([cand(Name, lexical, S)|_], N, S, Name) :- Name \== N, !.
scoring([_|Cs], N, S, Name) :- scoring(Cs, N, S, Name).

% ---------------------------------------------------------------------------
% Rule 11 (redundancy): a lexical candidate whose evidence a better-ranked
% kept candidate (or a host selection) already covers would add nothing: it
% is rejected as covered. A task that asks for two things keeps one unit per
% thing. Candidates a tie kept (all mode) stay. Only a candidate that may
% still cover (Powers, see settle/8: one that was not admitted may not)
% covers another.

redundancy(Req, Ranked, Tied, Powers, Kept, Rejected) :-
    redundancy(Req, Ranked, Tied, Powers, [], Kept, Rejected).

redundancy(_, [], _, _, _, [], []).
redundancy(Req, [cand(N, lexical, _)|Cs], Tied, Powers, Seen, Kept, Rs) :-
    covered_by(Req, N, Seen, By),
    \+ memberchk(N, Tied), !,
    coverage(Req, By, N, Clause),
    Rs = [reject(N, covered, because(redundancy, [by(By), Clause]))|Rs1],
    redundancy(Req, Cs, Tied, Powers, Seen, Kept, Rs1).
redundancy(Req, [cand(N, O, S)|Cs], Tied, Powers, Seen, [cand(N, O, S)|Kept], Rs) :-
    coverer(N, Powers, Seen, Seen1),
    redundancy(Req, Cs, Tied, Powers, Seen1, Kept, Rs).

coverer(N, Powers, Seen, [N|Seen]) :- memberchk(N, Powers), !.
coverer(_, _, Seen, Seen).

% covered_by(+Req, +N, +Seen, -By): By is the first unit in Seen that
% covers N: N would add almost nothing beside it (redundant/3), or, when
% the task's clauses were compared, N answers none of them at least as
% well as By (apart/3). A second unit resting on words of a clause the
% first answers is no second request.
covered_by(Req, N, [A|_], A) :- covers(Req, A, N), !.
covered_by(Req, N, [_|As], By) :- covered_by(Req, N, As, By).

covers(Req, A, N) :- redundant(Req, A, N), !.
covers(Req, A, N) :- clauses_compared(Req), \+ apart(Req, A, N).

% coverage(+Req, +A, +N, -Clause): which of covers/3's clauses found N
% covered by A, asked once a rejection is made rather than at every test:
% redundant, or same_clause (N answers no clause of the task as well).
coverage(Req, A, N, clause(redundant)) :- redundant(Req, A, N), !.
coverage(_, _, _, clause(same_clause)).

% ---------------------------------------------------------------------------
% Rule 12 (conflicts, packing): walk the ranked candidates once. A unit and
% its closure are admitted together or not at all. A unit conflicting with
% anything already admitted loses to it, which by the order above is the
% higher priority, then higher score, then earlier name. A group whose
% bodies do not fit in what is left of the budget is admitted rendered as
% references (each unit's name, description and the path of its SKILL.md,
% which the model reads before acting), their tokens counted instead: the
% skill the task asked for is never silently swapped for a smaller one
% below it. Only a group whose references do not fit either is rejected as
% over_budget. A candidate rule 10 kept only beside a stronger one
% (secondary) leaves when that one was not admitted: it was no answer to
% the task on its own.

pack([], _, _, _, _, _, [], []).
pack([cand(N, O, S)|Cs], Req, Budget, Whys, Adm, Used, Sel, Rej) :-
    memberchk(N, Adm), !,
    left(Req, Budget, Adm, [], Used, Left),
    admitted_because(O, N, Whys, 0, Left, Because),
    Sel = [select(N, O, Because)|Sel1],
    pack(Cs, Req, Budget, Whys, Adm, Used, Sel1, Rej).
pack([cand(N, _, _)|Cs], Req, Budget, Whys, Adm, Used, Sel, Rej) :-
    group(N, Group),
    conflicting(Group, Adm, With), !,
    conflict_facts(N, Group, With, Fs),
    riders(N, Whys, Cs, Cs1, Riders),
    pack(Cs1, Req, Budget, Whys, Adm, Used, Sel, Rej1),
    append([[reject(N, conflict, because(packing, Fs))], Riders, Rej1], Rej).
pack([cand(N, O, _)|Cs], Req, Budget, Whys, Adm, Used, Sel, Rej) :-
    group(N, Group),
    subtract(Group, Adm, New),
    tokens(Req, New, Cost),
    left(Req, Budget, Adm, New, Used, Left),
    Cost =< Left, !,
    Used1 is Used + Cost,
    admitted_because(O, N, Whys, Cost, Left, Because),
    admit(New, N, O, Because, Sel, Sel1),
    append(Adm, New, Adm1),
    pack(Cs, Req, Budget, Whys, Adm1, Used1, Sel1, Rej).
pack([cand(N, O, _)|Cs], Req, Budget, Whys, Adm, Used, Sel, Rej) :-
    group(N, Group),
    subtract(Group, Adm, New),
    tokens(Req, New, Cost),
    reference_tokens(Req, New, RefCost),
    left(Req, Budget, Adm, New, Used, Left),
    RefCost =< Left, !,
    Used1 is Used + RefCost,
    admitted_because(O, N, Whys, RefCost, Left, because(Rule, Fs)),
    append([Fs, [reference(Cost, Left)]], Fs1),
    admit_references(New, N, O, because(Rule, Fs1), reference(Cost, Left), Sel, Sel1),
    append(Adm, New, Adm1),
    pack(Cs, Req, Budget, Whys, Adm1, Used1, Sel1, Rej).
pack([cand(N, _, _)|Cs], Req, Budget, Whys, Adm, Used, Sel, [reject(N, over_budget, because(packing, [tokens(Cost), budget_left(Left)]))|Rej]) :-
    group(N, Group),
    subtract(Group, Adm, New),
    % The least the group would add, inline or as references: what the
    % budget would have to hold for it.
    tokens(Req, New, Inline),
    reference_tokens(Req, New, Refs),
    Cost is min(Inline, Refs),
    left(Req, Budget, Adm, New, Used, Left),
    riders(N, Whys, Cs, Cs1, Riders),
    pack(Cs1, Req, Budget, Whys, Adm, Used, Sel, Rej1),
    append([Riders, Rej1], Rej).


% packed(+Cs, +Req, +Budget, +Whys, -Sel, -Rej): pack/8 of the candidates
% Cs. When the greedy packing leaves a host's unit (mandatory or explicit,
% hosts_origin/1: the compile fails without it) over the budget, bodies packed before it took the room its reference
% needed: the candidates are packed again keeping that room for the host's
% units (the budget b(Budget, H), left/6). Asked only then, so that a
% compile whose host's units fit pays nothing for it (eight mandatory
% units failed every compile at any budget: the first ones went inline,
% and the last one's reference no longer fit).
packed(Cs, Req, Budget, Whys, Sel, Rej) :-
    pack(Cs, Req, Budget, Whys, [], 0, Sel0, Rej0),
    repacked(Rej0, Cs, Req, Budget, Whys, Sel0, Sel, Rej).

repacked(Rej0, Cs, Req, Budget, Whys, _, Sel, Rej) :-
    host_over_budget(Rej0, Cs), !,
    hosts(Cs, [], H),
    pack(Cs, Req, b(Budget, H), Whys, [], 0, Sel, Rej).
repacked(Rej, _, _, _, _, Sel, Sel, Rej).

host_over_budget([reject(N, over_budget, _)|_], Cs) :- host(N, Cs), !.
host_over_budget([_|Rs], Cs) :- host_over_budget(Rs, Cs).

host(N, [cand(N, O, _)|_]) :- !, hosts_origin(O).
host(N, [_|Cs]) :- host(N, Cs).

% hosts_origin(+O): a candidate of this origin is the host's, one the
% compile fails without: mandatory or selected. Not one the task invoked
% (rule 4), which may be left out: kept room for it failed a mandatory
% unit that fitted.
hosts_origin(mandatory).
hosts_origin(explicit).

% hosts(+Cs, +Acc, -Names): the host's candidates of Cs and their
% closures, each once, after Acc.
hosts([], Names, Names).
hosts([cand(N, O, _)|Cs], Acc, Names) :- hosts_origin(O), !,
    group(N, Group),
    subtract(Group, Acc, New),
    append(Acc, New, Acc1),
    hosts(Cs, Acc1, Names).
hosts([_|Cs], Acc, Names) :- hosts(Cs, Acc, Names).

% left(+Req, +Budget, +Adm, +New, +Used, -Left): what the budget, of which
% Used is taken, leaves for the units New beside the admitted Adm: a plain
% budget less Used; b(Budget, H) (packed/6) also less the room the
% references of the host's units H not admitted yet, New aside, need.
left(Req, b(Budget, H), Adm, New, Used, Left) :- !,
    subtract(H, Adm, H1),
    subtract(H1, New, Names),
    reserved(Req, Names, R),
    Left is Budget - Used - R.
left(_, Budget, _, _, Used, Left) :- Left is Budget - Used.

reserved(_, [], 0) :- !.
reserved(Req, Names, R) :- reference_tokens(Req, Names, R).

% conflict_facts(+N, +Group, +With, -Facts): the unit of N's group that
% conflicts with the admitted With is N itself, or a dependency, which
% the rejection names (dependency(D, conflict)): N's own skill declares
% no conflict, and the user would look there.
conflict_facts(N, [D|_], With, Fs) :- D \== N, conflicting([D], [With], _), !,
    Fs = [by(With), dependency(D, conflict)].
conflict_facts(N, [_|Ds], With, Fs) :- Ds \== [], !, conflict_facts(N, Ds, With, Fs).
conflict_facts(_, _, With, [by(With)]).

% riders(+K, +Whys, +Cs, -Rest, -Rejected): the lexical candidates of Cs
% that rule 10 kept only beside K (clause secondary) leave as K does, each
% rejected citing it; Rest is the others. Asked only when K is not
% admitted, so packing pays nothing for it otherwise.
riders(_, _, [], [], []).
riders(K, Whys, [cand(N, lexical, S)|Cs], Rest, [reject(N, below_threshold, because(packing, [clause(without_kept), score(S), by(K)]))|Rs]) :-
    memberchk(why(N, [clause(secondary)|Fs]), Whys),
    memberchk(kept(K, _), Fs), !,
    riders(K, Whys, Cs, Rest, Rs).
riders(K, Whys, [C|Cs], [C|Rest], Rs) :- riders(K, Whys, Cs, Rest, Rs).

% A lexical candidate is selected by the clause of Rule 10 that kept it; a
% host selection or mandatory unit by this rule, with the tokens its group
% added and the budget left before it.
admitted_because(lexical, N, Whys, _, _, because(strength, Fs)) :- memberchk(why(N, Fs), Whys), !.
admitted_because(_, _, _, Cost, Left, because(packing, [tokens(Cost), budget_left(Left)])).

% The group of a unit is its closure followed by the unit itself.
group(N, Group) :- closure(N, deps(Ds)), append(Ds, [N], Group).

% Members other than the unit itself enter as its dependencies (Rule 6).
admit([], _, _, _, Sel, Sel).
admit([N|Gs], N, O, B, Sel, Rest) :- !,
    Sel = [select(N, O, B)|Sel1],
    admit(Gs, N, O, B, Sel1, Rest).
admit([G|Gs], N, O, B, Sel, Rest) :-
    Sel = [select(G, dependency, because(dependencies, [by(N)]))|Sel1],
    admit(Gs, N, O, B, Sel1, Rest).

% admit_references/7 is admit/6 for a group rendered as references: each
% member says so: reference(Cost, Left), the tokens the group's bodies
% would have added and the budget that was left for them.
admit_references([], _, _, _, _, Sel, Sel).
admit_references([N|Gs], N, O, B, Ref, Sel, Rest) :- !,
    Sel = [select(N, O, B)|Sel1],
    admit_references(Gs, N, O, B, Ref, Sel1, Rest).
admit_references([G|Gs], N, O, B, Ref, Sel, Rest) :-
    Sel = [select(G, dependency, because(dependencies, [by(N), Ref]))|Sel1],
    admit_references(Gs, N, O, B, Ref, Sel1, Rest).
