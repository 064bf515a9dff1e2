// Package lockfile pins a third-party skill distribution the way a lock
// file pins a dependency: upstream, commit, license, and the digest and size
// of every file in scope. Verify checks a checkout against it.
package lockfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Lock describes a pinned distribution.
type Lock struct {
	Name      string `json:"name"`
	Upstream  string `json:"upstream"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	License   string `json:"license"`   // SPDX identifier
	Copyright string `json:"copyright"` // the upstream copyright line
	// Include lists the slash-separated glob patterns of the files in scope;
	// "**" matches any number of folders. Files outside them (scripts, CI,
	// the upstream README) are neither checked nor reported.
	Include []string `json:"include"`
	Files   []File   `json:"files"`
}

// File is one pinned file.
type File struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// Read parses a lock file strictly.
func Read(file string) (*Lock, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var l Lock
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(l.Include) == 0 || len(l.Files) == 0 {
		return nil, fmt.Errorf("%s: a lock needs include patterns and files", file)
	}
	return &l, nil
}

// Write encodes the lock with files sorted by path, so it diffs cleanly.
func (l *Lock) Write(w io.Writer) error {
	sort.Slice(l.Files, func(i, j int) bool { return l.Files[i].Path < l.Files[j].Path })
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(l)
}

// Scan hashes every file of dir matched by include, sorted by path.
func Scan(dir string, include []string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !Matches(include, rel) {
			return nil
		}
		f := File{Path: rel}
		if !d.Type().IsRegular() {
			f.SHA256 = "not a regular file"
			files = append(files, f)
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		f.SHA256, f.Size = hex.EncodeToString(sum[:]), int64(len(data))
		files = append(files, f)
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, err
}

// Report lists how a checkout differs from its lock.
type Report struct {
	Missing []string `json:"missing"`
	Extra   []string `json:"extra"`
	Changed []string `json:"changed"`
	Checked int      `json:"checked"`
}

// OK reports whether the checkout matches the lock exactly.
func (r *Report) OK() bool { return len(r.Missing)+len(r.Extra)+len(r.Changed) == 0 }

// Verify compares the files of dir in the lock's scope with the lock.
func Verify(dir string, l *Lock) (*Report, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	got, err := Scan(dir, l.Include)
	if err != nil {
		return nil, err
	}
	have := make(map[string]File, len(got))
	for _, f := range got {
		have[f.Path] = f
	}
	r := &Report{Missing: []string{}, Extra: []string{}, Changed: []string{}}
	for _, want := range l.Files {
		f, ok := have[want.Path]
		switch {
		case !ok:
			r.Missing = append(r.Missing, want.Path)
		case f.SHA256 != want.SHA256 || f.Size != want.Size:
			r.Changed = append(r.Changed, want.Path)
		}
		delete(have, want.Path)
		r.Checked++
	}
	for p := range have {
		r.Extra = append(r.Extra, p)
	}
	sort.Strings(r.Missing)
	sort.Strings(r.Extra)
	sort.Strings(r.Changed)
	return r, nil
}

// Matches reports whether the slash-separated path matches any pattern.
func Matches(patterns []string, p string) bool {
	for _, pat := range patterns {
		if match(strings.Split(pat, "/"), strings.Split(p, "/")) {
			return true
		}
	}
	return false
}

func match(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if match(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
