// Package serveload drives `rlmc serve` under load while its catalog is
// edited: a generated catalog whose edits are each one atomic step (a file
// or folder renamed into place), HTTP clients that compile in a loop, and
// a record of what they saw. The load-and-fault test in package server and
// the longer benchmark in bench/serveload share it. Every request goes to
// the address it is given, which they keep on loopback.
package serveload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"
)

// Pinned skills are never removed, so that a request selecting one is
// valid in every state of the catalog.
const Pinned = 10

// Catalog is a generated catalog on disk and the edits applied to it.
type Catalog struct {
	Root   string // the skill root
	Policy string // the policy file
	stage  string // where new files are written before being renamed in
	n      int
	added  []string // names of skills added by edits and still there, oldest first
	adds   int      // skills added so far
	gone   int      // skills of the upper half removed so far
}

// Word returns a made-up word, distinct for each i, that no stop list or
// stemmer touches.
func Word(i int) string {
	syll := []string{"ka", "lo", "mi", "nu", "pe", "ra", "si", "tu", "vo", "ze", "bi", "do"}
	w := "x"
	for j := 0; j < 4; j++ {
		w += syll[i%len(syll)]
		i /= len(syll)
	}
	return w + "q"
}

// Name returns the name of generated skill i.
func Name(i int) string { return fmt.Sprintf("skill-%04d", i) }

func skillText(name string, i int, body string) string {
	return "---\nname: " + name + "\ndescription: Handles " + Word(2*i) + " " + Word(2*i+1) + " work for the team.\n---\n# " + name + "\n\n" + body + "\n"
}

// NewCatalog writes n skills (n >= 2*Pinned) below dir, and a policy that
// sets only the budget and a folder bound the catalog stays under however
// many skills its edits add (the loader's default stops a root at 2,000
// folders, and a catalog cut short would be measured as if whole).
func NewCatalog(dir string, n int) (*Catalog, error) {
	c := &Catalog{Root: filepath.Join(dir, "skills"), Policy: filepath.Join(dir, "policy.yaml"), stage: filepath.Join(dir, "stage"), n: n}
	for _, d := range []string{c.Root, c.stage} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	for i := range n {
		if err := os.MkdirAll(filepath.Join(c.Root, Name(i)), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(c.Root, Name(i), "SKILL.md"), []byte(skillText(Name(i), i, "Revision 0.")), 0o644); err != nil {
			return nil, err
		}
	}
	return c, os.WriteFile(c.Policy, []byte(c.policy("")), 0o644)
}

// policy is the catalog's policy file: the budget, a folder bound of
// twice the catalog's size and more, and then rest.
func (c *Catalog) policy(rest string) string {
	return fmt.Sprintf("budget: 8000\nlimits: {max_folders: %d}\n", 2*c.n+1000) + rest
}

// place writes data to a staged file and renames it to path: one atomic
// step, as an editor saves.
func (c *Catalog) place(path, data string) error {
	tmp := filepath.Join(c.stage, "file")
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Edit applies edit number i (from 1), one atomic step, and says what it
// did. In turn: a body rewritten (a pinned skill's every other time), a
// skill added, a skill removed (one added earlier, else one of the upper
// half), the policy rewritten (a priority and a deny changed).
func (c *Catalog) Edit(i int) (string, error) {
	switch i % 4 {
	case 1:
		k := (i / 4) % Pinned
		if (i/4)%2 == 1 {
			k = c.n/2 + (i/4)%(c.n/2)
		}
		path := filepath.Join(c.Root, Name(k), "SKILL.md")
		if _, err := os.Stat(path); err != nil {
			k = i % Pinned
			path = filepath.Join(c.Root, Name(k), "SKILL.md")
		}
		return "edit " + Name(k), c.place(path, skillText(Name(k), k, fmt.Sprintf("Revision %d.", i)))
	case 2:
		k := c.n + c.adds
		c.adds++
		name := Name(k)
		dir := filepath.Join(c.stage, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillText(name, k, "New.")), 0o644); err != nil {
			return "", err
		}
		c.added = append(c.added, name)
		return "add " + name, os.Rename(dir, filepath.Join(c.Root, name))
	case 3:
		var name string
		if len(c.added) > 1 {
			name, c.added = c.added[0], c.added[1:]
		} else {
			name = Name(c.n - 1 - c.gone)
			c.gone++
		}
		out := filepath.Join(c.stage, "removed")
		if err := os.Rename(filepath.Join(c.Root, name), out); err != nil {
			return "", err
		}
		return "remove " + name, os.RemoveAll(out)
	default:
		policy := c.policy(fmt.Sprintf("priority: {%s: %d}\ndeny: [%s]\n", Name(i%Pinned), 100+i, Name(c.n/2+i%(c.n/4))))
		return "rewrite the policy", c.place(c.Policy, policy)
	}
}

// Request is one compile request, as `rlmc test` cases write it.
type Request struct {
	Task   string   `json:"task"`
	Select []string `json:"select,omitempty"`
}

// Requests returns the mix the clients send: tasks that route to a skill
// of the lower half, the same with a pinned skill selected, and tasks
// that route nowhere. All are valid in every state of the catalog.
func (c *Catalog) Requests() []Request {
	var out []Request
	for i := 0; i < c.n/2; i += max(1, c.n/200) {
		out = append(out, Request{Task: "please " + Word(2*i) + " " + Word(2*i+1) + " today"})
		out = append(out, Request{Task: "help with " + Word(2*i+1), Select: []string{Name(i % Pinned)}})
		out = append(out, Request{Task: "what is the capital of France?"})
	}
	return out
}

// Record is what the clients saw.
type Record struct {
	mu           sync.Mutex
	Requests     int
	Failures     []string       // one line per failed request (status, body), at most 20 kept
	Failed       int            // all of them
	Fingerprints map[string]int // catalog_fingerprint -> responses
	Latencies    []time.Duration
}

func (r *Record) add(fp string, d time.Duration, failure string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Requests++
	r.Latencies = append(r.Latencies, d)
	if failure != "" {
		r.Failed++
		if len(r.Failures) < 20 {
			r.Failures = append(r.Failures, failure)
		}
		return
	}
	if r.Fingerprints == nil {
		r.Fingerprints = map[string]int{}
	}
	r.Fingerprints[fp]++
}

// Quantile returns the q-quantile of the latencies (0 <= q <= 1).
func (r *Record) Quantile(q float64) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.Latencies) == 0 {
		return 0
	}
	l := slices.Clone(r.Latencies)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return l[min(len(l)-1, int(q*float64(len(l))))]
}

// Run sends requests from clients goroutines to url (the server's base
// URL) until ctx ends or each client has sent limit requests, each client
// waiting pause between two, and returns what they saw. token, when set,
// is sent as a bearer token.
func Run(ctx context.Context, url, token string, clients, limit int, pause time.Duration, reqs []Request) *Record {
	rec := &Record{}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	defer hc.CloseIdleConnections()
	var wg sync.WaitGroup
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(g), 15))
			for n := 0; n < limit && ctx.Err() == nil; n++ {
				body, _ := json.Marshal(reqs[rnd.IntN(len(reqs))])
				start := time.Now()
				fp, failure := compile(ctx, hc, url, token, body)
				if ctx.Err() != nil && failure != "" {
					return // the run ended during this request
				}
				rec.add(fp, time.Since(start), failure)
				if pause > 0 {
					select {
					case <-ctx.Done():
					case <-time.After(pause):
					}
				}
			}
		}()
	}
	wg.Wait()
	return rec
}

func compile(ctx context.Context, hc *http.Client, url, token string, body []byte) (fp, failure string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/compile", bytes.NewReader(body))
	if err != nil {
		return "", err.Error()
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err.Error()
	}
	defer resp.Body.Close()
	// The head is enough to learn the catalog; the rest is read and
	// dropped, so the connection is reused and the whole answer counted.
	head := make([]byte, 512)
	n, err := io.ReadFull(resp.Body, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err.Error()
	}
	data := head[:n]
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return "", err.Error()
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Sprintf("%d %.300s", resp.StatusCode, data)
	}
	fp = catalogFingerprint(data)
	if fp == "" {
		return "", fmt.Sprintf("not a compile result: %.300s", data)
	}
	return fp, ""
}

// catalogFingerprint reads the catalog_fingerprint of a compile result
// from its first lines, where the contract puts it: a result over a large
// catalog is hundreds of KiB (every unit is listed), and decoding it whole
// would make the clients, on the same cores as the server, the bottleneck.
func catalogFingerprint(data []byte) string {
	const key = `"catalog_fingerprint": "`
	head := data[:min(len(data), 512)]
	i := bytes.Index(head, []byte(key))
	if i < 0 || !bytes.HasPrefix(head, []byte("{")) {
		return ""
	}
	rest := head[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// CatalogFingerprint asks the server which catalog it serves.
func CatalogFingerprint(ctx context.Context, url, token string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/v1/catalog", nil)
	if err != nil {
		return "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var doc struct {
		CatalogFingerprint string `json:"catalog_fingerprint"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return "", err
	}
	return doc.CatalogFingerprint, nil
}
