package retrieval

import (
	"slices"
	"testing"
)

// TestPastedFiles: each kind of file is known by lines of its own syntax,
// all of them; prose, other material and a part of a file are no kind.
func TestPastedFiles(t *testing.T) {
	tests := []struct {
		name, task string
		want       []string // kinds' names
	}{
		{name: "dockerfile", task: "FROM python:3.12\nWORKDIR /srv\nCOPY . .\nRUN pip install -r requirements.txt\nCMD gunicorn app.wsgi\n\nMake it smaller.",
			want: []string{"Dockerfile"}},
		{name: "compose file", task: "services:\n  api:\n    image: acme/api:1.4\n    ports: [\"8000:8000\"]\n", want: []string{"Docker Compose file"}},
		{name: "github actions workflow", task: "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: make test\n",
			want: []string{"GitHub Actions workflow"}},
		{name: "gitlab ci", task: "stages:\n  - test\n  - deploy\n\ntest:\n  stage: test\n  script:\n    - npm ci\n    - npm test\n", want: []string{"GitLab CI configuration"}},
		{name: "azure pipelines is no gitlab ci", task: "stages:\n- stage: Build\n  jobs:\n  - job: build\n    steps:\n    - script: make\n", want: nil},
		{name: "kubernetes manifest", task: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ledger\nspec:\n  replicas: 2\n", want: []string{"Kubernetes manifest"}},
		{name: "helm template", task: "spec:\n  replicas: {{ .Values.replicaCount }}\n", want: []string{"Helm chart template"}},
		{name: "prometheus rules", task: "groups:\n- name: checkout\n  rules:\n  - alert: HighErrorRate\n    expr: rate(errors[5m]) > 0.01\n", want: []string{"Prometheus rule file"}},
		{name: "terraform", task: "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"acme-logs\"\n}\n", want: []string{"Terraform configuration"}},
		{name: "nginx", task: "server {\n    listen 443 ssl;\n    location / {\n        proxy_pass http://api;\n    }\n}\n", want: []string{"nginx configuration"}},
		{name: "diff", task: "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,4 @@\n+import os\n", want: []string{"diff"}},
		{name: "python traceback", task: "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'id'\n", want: []string{"Python traceback"}},
		{name: "two kinds", task: "FROM node:22\nRUN npm ci\nCMD node server.js\n\nTraceback (most recent call last):\n  File \"x.py\", line 1\n",
			want: []string{"Dockerfile", "Python traceback"}},
		{name: "prose that names them", task: "Write a Dockerfile and a GitHub Actions workflow that runs the tests, then a Kubernetes manifest.", want: nil},
		{name: "a sentence starting with a keyword", task: "FROM now on, RUN the tests before you push.\nCMD line tools are fine.", want: nil},
		{name: "part of a dockerfile", task: "RUN pip install -r requirements.txt\nCOPY . .\n", want: nil},
		{name: "yaml that is no workflow", task: "jobs:\n  nightly: true\nname: x\n", want: nil},
		{name: "sql in a log", task: "12:01:02 SELECT id FROM users WHERE org_id = 4\n12:01:03 SELECT id FROM users WHERE org_id = 5\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, k := range pastedFiles(tt.task) {
				got = append(got, k.name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// TestPastedKindEvidence: a pasted Dockerfile is material (its lines read
// as prose one by one: "RUN pip install -r requirements.txt"), and the
// words it stands for are evidence weighed as the instruction's, sourced
// to it: a container skill gets "docker" from the file the user pasted.
// Words the instruction itself uses stay the instruction's.
func TestPastedKindEvidence(t *testing.T) {
	ix := testIndex(unit("container-images", "Write Dockerfiles that build small Docker images"), unit("python-deps", "Manage pip requirements for Python"))
	const dockerfile = "FROM python:3.12\nWORKDIR /srv\nCOPY . .\nRUN pip install -r requirements.txt\nCMD gunicorn app.wsgi\n"
	evidence := func(task, name, term string) (Evidence, bool) {
		for _, e := range ix.evidence(ix.Analyze(task, nil), ix.ids[name], never) {
			if slices.Equal(e.Terms, []string{term}) {
				return e, true
			}
		}
		return Evidence{}, false
	}
	task := dockerfile + "\nMake the build faster and the result smaller."
	if e, ok := evidence(task, "container-images", Stem("docker")); !ok || e.Source != SourcePastedKind || e.Kind != "Dockerfile" {
		t.Errorf("docker: got %+v, found %v; want evidence from the pasted Dockerfile", e, ok)
	}
	if e, ok := evidence(task, "python-deps", Stem("pip")); !ok || e.Source != SourceMaterial {
		t.Errorf("pip: got %+v, found %v; want material evidence", e, ok)
	}
	said := dockerfile + "\nMake this Dockerfile build faster."
	if e, ok := evidence(said, "container-images", Stem("dockerfile")); !ok || e.Source != "" {
		t.Errorf("dockerfile said in the instruction: got %+v, found %v; want the instruction's", e, ok)
	}
}
