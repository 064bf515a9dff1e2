package retrieval

import "strings"

// A pasted file of a well-known sort says what the task is about as
// plainly as the instruction would ("here is our Dockerfile"), while its
// own words weigh as material's: a Dockerfile's words are apt-get, pip and
// COPY, not "Docker". A piece of pasted material that holds lines only
// such a file holds (pastedKinds) stands for the words users call it by,
// weighed as the instruction's (Evidence.Source SourcePastedKind). Only
// whole files count, each known by several lines of its own syntax: a
// language found inside other material (SQL in an ORM's log) names no
// file the user is working on.
type pastedKind struct {
	name  string   // as users write it, for explanations
	words string   // the words it stands for in the task
	lines []lineIs // each holds for some line of the piece
}

// lineIs tests one line of pasted material, with its trailing blanks
// removed.
type lineIs func(line string) bool

var pastedKinds = []pastedKind{
	{"Dockerfile", "dockerfile docker", []lineIs{
		prefix("FROM "), prefix("RUN ", "COPY ", "ADD "), prefix("CMD ", "ENTRYPOINT ", "EXPOSE ", "WORKDIR "),
	}},
	{"Docker Compose file", "docker compose", []lineIs{
		equal("services:"), indented("image: "),
	}},
	{"GitHub Actions workflow", "github actions workflow", []lineIs{
		equal("jobs:"), indented("runs-on: "), indented("uses: ", "- uses: ", "run: ", "- run: "),
	}},
	{"GitLab CI configuration", "gitlab ci pipeline", []lineIs{
		equal("stages:"), indented("stage: "), indented("script:"),
	}},
	{"Kubernetes manifest", "kubernetes manifest", []lineIs{
		prefix("apiVersion: "), prefix("kind: "), equal("metadata:", "spec:"),
	}},
	{"Helm chart template", "helm chart", []lineIs{
		contains("{{ .Values.", "{{- .Values.", "{{ .Release.", "{{- .Release."),
	}},
	{"Prometheus rule file", "prometheus alerting rules", []lineIs{
		indented("- alert: ", "alert: "), indented("expr: "),
	}},
	{"Terraform configuration", "terraform", []lineIs{
		prefix(`resource "`, `module "`, `provider "`, `data "`),
	}},
	{"nginx configuration", "nginx", []lineIs{
		trimmed("server {", "location "), trimmed("listen ", "proxy_pass ", "server_name "),
	}},
	{"diff", "diff", []lineIs{
		prefix("diff --git ", "--- a/"), prefix("@@ -"),
	}},
	{"Python traceback", "python traceback", []lineIs{
		prefix("Traceback (most recent call last):"),
	}},
}

// PastedKind is a kind of file known in pasted material, for the
// documentation: its name and the words it stands for.
type PastedKind struct{ Name, Words string }

// PastedKinds lists the kinds of file known in pasted material, in the
// order they are looked for.
func PastedKinds() []PastedKind {
	out := make([]PastedKind, len(pastedKinds))
	for i, k := range pastedKinds {
		out[i] = PastedKind{k.name, k.words}
	}
	return out
}

func prefix(ps ...string) lineIs {
	return func(l string) bool { return hasAnyPrefix(l, ps) }
}

// indented: the line, blanks before it removed, begins with one of ps,
// and it has blanks before it (a YAML value nested in a mapping).
func indented(ps ...string) lineIs {
	return func(l string) bool {
		t := strings.TrimLeft(l, " \t")
		return len(t) < len(l) && hasAnyPrefix(t, ps)
	}
}

func trimmed(ps ...string) lineIs {
	return func(l string) bool { return hasAnyPrefix(strings.TrimLeft(l, " \t"), ps) }
}

func equal(ss ...string) lineIs {
	return func(l string) bool {
		for _, s := range ss {
			if l == s {
				return true
			}
		}
		return false
	}
}

func contains(ss ...string) lineIs {
	return func(l string) bool {
		for _, s := range ss {
			if strings.Contains(l, s) {
				return true
			}
		}
		return false
	}
}

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// kindScan bounds the bytes of a task read for the kinds of file it
// holds: a file's sort shows in its first lines, and a pasted megabyte
// costs no more than this.
const kindScan = 256 << 10

// pastedFiles returns the kinds of file task holds, in pastedKinds order:
// those every line test of which holds for some line of the task's first
// kindScan bytes.
func pastedFiles(task string) []*pastedKind {
	text := task[:min(len(task), kindScan)]
	var out []*pastedKind
	for i := range pastedKinds {
		if holdsAll(text, pastedKinds[i].lines) {
			out = append(out, &pastedKinds[i])
		}
	}
	return out
}

// holdsAll reports whether every test of lines holds for some line of
// text.
func holdsAll(text string, lines []lineIs) bool {
	var held uint32
	all := uint32(1)<<len(lines) - 1
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		for i, is := range lines {
			if held&(1<<i) == 0 && is(line) {
				held |= 1 << i
			}
		}
		if held == all {
			return true
		}
	}
	return false
}

// ofKind reports whether a line (trailing blanks removed) is one of the
// lines of one of kinds: it reads as pasted material, whatever its words.
func ofKind(kinds []*pastedKind, line string) bool {
	for _, k := range kinds {
		for _, is := range k.lines {
			if is(line) {
				return true
			}
		}
	}
	return false
}
