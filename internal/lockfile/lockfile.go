// Package lockfile pins a third-party skill distribution the way a lock
// file pins a dependency: upstream, commit, license, and the digest and size
// of every file in scope. Verify checks a checkout against it.
//
// The scope is every file under a skill folder (a folder holding SKILL.md),
// whatever the include patterns say, because the loader reads the files
// beside SKILL.md (manifest.json, agents/openai.yaml) and a body tells the
// agent to run the scripts it ships; the include patterns add files outside
// skill folders (a LICENSE, a README). Nothing else is pinned, and Verify
// lists what it did not cover.
package lockfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/rlmc-dev/rlmc/internal/safefs"
	"github.com/rlmc-dev/rlmc/internal/strictjson"
)

// Errors a scan reports; they wrap the path concerned, so test them with
// errors.Is.
var (
	// ErrSymlink means the tree holds a symlink that does not resolve
	// inside it: an absolute target, one that climbs out with "..", one
	// that resolves outside through other links, or a dangling one. Such
	// a link can make a folder outside the pinned tree appear inside it.
	// A link that resolves inside is pinned as its target (File.Link).
	ErrSymlink = errors.New("symlink not resolving inside the pinned tree")
	// ErrNotRegular means the tree, or the lock file itself, is a FIFO,
	// socket or device, which is never read.
	ErrNotRegular = errors.New("not a regular file or folder")
	// ErrChanged means a file changed kind or identity while it was read.
	ErrChanged = errors.New("file changed while it was read")
	// ErrBadPattern means an include pattern is malformed.
	ErrBadPattern = errors.New("malformed include pattern")
	// ErrNoMatch means an include pattern matches no file, which is
	// always a mistake in a lock being written.
	ErrNoMatch = errors.New("include pattern matches no file")
	// ErrEmpty means a lock would pin no file at all.
	ErrEmpty = errors.New("no file in scope")
	// ErrNotDir means the checkout named is not a folder.
	ErrNotDir = errors.New("not a directory")
	// ErrBadPath means a lock names a file by a path that is not clean,
	// relative and inside the checkout, which no scan could have written.
	ErrBadPath = errors.New("malformed file path in lock")
	// ErrUnportable means a file in scope has a name a lock cannot pin:
	// it holds a backslash (a separator on Windows) or a control
	// character.
	ErrUnportable = errors.New("file name with a backslash or a control character cannot be pinned")
	// ErrUnpinnedTarget means a link in scope leads to a file that no
	// skill folder and no include pattern covers (or into the checkout's
	// top-level .git, which is never pinned): the text an agent reads
	// through it would go unchecked.
	ErrUnpinnedTarget = errors.New("link in scope leads to a file the lock does not pin")
	// ErrBadEntry means a lock entry is neither a file (a digest) nor a
	// link (a target and no digest), has a negative size, or lists a path
	// listed before, which no scan could have written.
	ErrBadEntry = errors.New("malformed file entry in lock")
)

// SkillFile names the file that makes a folder a skill folder.
const SkillFile = "SKILL.md"

// Lock describes a pinned distribution.
type Lock struct {
	Name      string `json:"name"`
	Upstream  string `json:"upstream"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	License   string `json:"license"`   // SPDX identifier
	Copyright string `json:"copyright"` // the upstream copyright line
	// Include lists the slash-separated glob patterns of files in scope
	// besides the files of every skill folder; "**" matches any number of
	// folders. Files outside both are not checked; Verify lists them.
	Include []string `json:"include"`
	Files   []File   `json:"files"`
}

// File is one pinned file, or one pinned symlink: a link is pinned as its
// target string (Link), with no digest and no size, because what it points
// to is pinned where it lies. Locks written before links were pinned have
// no link entries and read as they always did.
type File struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size"`
	Link   string `json:"link,omitempty"`
}

// UnmarshalJSON reads an entry strictly: a file (one with no link) must
// say its size, since a size left out would read as an empty file and the
// file as changed, rather than the lock as malformed.
func (f *File) UnmarshalJSON(data []byte) error {
	var v struct {
		Path   string `json:"path"`
		SHA256 string `json:"sha256"`
		Size   *int64 `json:"size"`
		Link   string `json:"link"`
	}
	// Keys spelt exactly, each once: encoding/json took "LINK" for
	// "link", the last of the two winning.
	if err := strictjson.Unmarshal(data, &v); err != nil {
		return err
	}
	if v.Size == nil && v.Link == "" {
		return fmt.Errorf("%q: %w: a file without its size", v.Path, ErrBadEntry)
	}
	*f = File{Path: v.Path, SHA256: v.SHA256, Link: v.Link}
	if v.Size != nil {
		f.Size = *v.Size
	}
	return nil
}

// MarshalJSON writes a file as {path, sha256, size}, as locks always had
// it, and a link as {path, link}: a size of 0 would read as an empty file.
func (f File) MarshalJSON() ([]byte, error) {
	var v any
	if f.Link == "" {
		v = struct {
			Path   string `json:"path"`
			SHA256 string `json:"sha256"`
			Size   int64  `json:"size"`
		}{f.Path, f.SHA256, f.Size}
	} else {
		v = struct {
			Path string `json:"path"`
			Link string `json:"link"`
		}{f.Path, f.Link}
	}
	// json.Marshal would escape <, > and &, which Write leaves as they are.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// maxLockBytes bounds a lock file; the largest real one is tens of KiB.
const maxLockBytes = 16 << 20

// Read parses a lock file strictly. The file must be a regular file: a FIFO
// given as the lock is refused, not waited on.
func Read(file string) (*Lock, error) {
	data, err := readRegular(file, maxLockBytes)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: the lock file is empty", file)
	}
	// Strictly: a key given twice (the second silently won) or anything
	// after the lock's object (it passed) is no lock a scan wrote.
	var l Lock
	if err := strictjson.Unmarshal(data, &l); err != nil {
		// Said in the JSON's terms ("files[2].size: a string where a
		// number goes"), not in Go's.
		return nil, fmt.Errorf("%s: %w", file, strictjson.Explain(data, err))
	}
	if len(l.Include) == 0 || len(l.Files) == 0 {
		return nil, fmt.Errorf("%s: a lock needs include patterns and files", file)
	}
	if err := l.CheckMeta(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := CheckPatterns(l.Include); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	seen := make(map[string]bool, len(l.Files))
	for _, f := range l.Files {
		if !localPath(f.Path) {
			return nil, fmt.Errorf("%s: %q: %w", file, f.Path, ErrBadPath)
		}
		// A file is a digest, a link a target and no digest; a path is
		// listed once: a scan writes nothing else, and a verify of a
		// path listed twice would find it missing once.
		switch {
		case seen[f.Path]:
			return nil, fmt.Errorf("%s: %q: %w: listed more than once", file, f.Path, ErrBadEntry)
		case f.Size < 0:
			return nil, fmt.Errorf("%s: %q: %w: a negative size", file, f.Path, ErrBadEntry)
		case (f.Link != "" && (f.SHA256 != "" || f.Size != 0)) || (f.Link == "" && f.SHA256 == ""):
			return nil, fmt.Errorf("%s: %q: %w: neither a file (a digest) nor a link (a target and no digest)", file, f.Path, ErrBadEntry)
		case f.Link == "" && !isDigest(f.SHA256):
			// No file has it: verify would call the file changed.
			return nil, fmt.Errorf("%s: %q: %w: a digest that is not 64 lowercase hex digits", file, f.Path, ErrBadEntry)
		}
		seen[f.Path] = true
	}
	return &l, nil
}

// CheckMeta checks what a lock says of its checkout, as `vendor lock`
// writes it from its flags: a commit of hex digits (4 to 64, as git abbreviates), a date as
// YYYY-MM-DD or RFC 3339, an upstream URL with a scheme and a host (or
// git's user@host:path), and a license with no blank in it (an SPDX
// identifier or expression is written with none but between its terms);
// each may be left out. A value that is none of these would be pinned as
// if it were one.
func (l *Lock) CheckMeta() error {
	if c := l.Commit; c != "" && (len(c) < 4 || len(c) > 64 || strings.Trim(strings.ToLower(c), "0123456789abcdef") != "") {
		return fmt.Errorf("commit %q is not 4 to 64 hex digits", c)
	}
	if d := l.Date; d != "" {
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			if _, err := time.Parse(time.RFC3339, d); err != nil {
				return fmt.Errorf("date %q is neither YYYY-MM-DD nor RFC 3339", d)
			}
		}
	}
	if u := l.Upstream; u != "" && !isUpstream(u) {
		return fmt.Errorf("upstream %q is not a repository URL without credentials (https://host/path, or git's user@host:path)", u)
	}
	if lic := l.License; lic != "" && (strings.TrimSpace(lic) != lic || strings.ContainsFunc(strings.NewReplacer(" AND ", "", " OR ", "", " WITH ", "").Replace(lic), unicode.IsSpace)) {
		return fmt.Errorf("license %q is not an SPDX identifier or expression", lic)
	}
	return nil
}

// isUpstream reports whether u names a repository: a URL with a scheme
// and a host, or git's scp-like user@host:path.
func isUpstream(u string) bool {
	if p, err := url.Parse(u); err == nil && p.Scheme != "" && p.Host != "" {
		// A password, a user over https (a token is given as one) or a
		// query (a token) would be written into a file meant to be
		// committed. ssh's user (ssh://git@host/path) is no secret, as in
		// git's scp-like form.
		_, password := p.User.Password()
		user := p.User != nil && p.Scheme != "ssh" && p.Scheme != "git+ssh"
		return !password && !user && p.RawQuery == "" && p.Fragment == ""
	}
	at, colon := strings.Index(u, "@"), strings.Index(u, ":")
	return at > 0 && colon > at+1 && colon < len(u)-1 && !strings.ContainsAny(u, " \t")
}

// isDigest reports whether s is a SHA-256 digest as a scan writes it.
func isDigest(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// localPath reports whether p is a path a scan writes: slash-separated,
// clean, relative, not "." and never climbing out with "..", without a
// backslash or a control character. Anything else could never match a
// file of the checkout (a NUL), would name another file on another system
// (a backslash is a separator on Windows), and an absolute path would make
// the walk up its folders start from "/".
func localPath(p string) bool {
	return p != "" && path.Clean(p) == p && !path.IsAbs(p) &&
		filepath.IsLocal(filepath.FromSlash(p)) && p != "." &&
		p != ".." && !strings.HasPrefix(p, "../") && portable(p)
}

// portable reports whether p holds no backslash and no control character.
func portable(p string) bool {
	return !strings.ContainsFunc(p, func(r rune) bool { return r == '\\' || r < 0x20 || r == 0x7f })
}

// readRegular reads a regular file of at most limit bytes. It opens without
// blocking and checks what it opened, so a FIFO is an error, never a hang.
func readRegular(file string, limit int64) ([]byte, error) {
	fh, err := os.OpenFile(file, safefs.ReadOnly, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", file, ErrNotRegular)
	}
	data, err := io.ReadAll(io.LimitReader(fh, min(limit, math.MaxInt64-1)+1)) // limit+1 overflows at MaxInt64
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", file, limit)
	}
	return data, nil
}

// Write encodes the lock with files sorted by path, so it diffs cleanly.
func (l *Lock) Write(w io.Writer) error {
	sort.Slice(l.Files, func(i, j int) bool { return l.Files[i].Path < l.Files[j].Path })
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(l)
}

// Tree is what a scan of a checkout found.
type Tree struct {
	// Files are the files in scope with their digests, sorted by path.
	Files []File
	// SkillFolders are the skill folders, slash-separated and sorted; "."
	// is the checkout itself.
	SkillFolders []string
	// ByPattern counts the files in scope only through an include pattern.
	ByPattern int
	// Uncovered lists the files outside every skill folder and include
	// pattern, sorted. They are neither hashed nor opened.
	Uncovered []string
}

// Scan hashes every file of dir in scope: every file under a skill folder and
// every file an include pattern matches. Each pattern must be well formed and
// match at least one file, and the scope must not be empty. A symlink that
// leaves the tree, or a special file, anywhere in the tree is an error;
// neither is ever opened. A symlink that stays inside is pinned as its
// target when it is in scope, and never followed.
func Scan(dir string, include []string) (*Tree, error) {
	if err := CheckPatterns(include); err != nil {
		return nil, err
	}
	t, err := scan(dir, include, nil)
	if err != nil {
		return nil, err
	}
	for _, pat := range include {
		if !t.matchesAny(pat) {
			return nil, fmt.Errorf("%q: %w", pat, ErrNoMatch)
		}
	}
	if len(t.Files) == 0 {
		return nil, ErrEmpty
	}
	for _, f := range t.Files {
		if !portable(f.Path) {
			// A lock would pin it under a name that verifies nowhere
			// else, and Read refuses such a path. (Verify reports such a
			// file, added since, as one more file.)
			return nil, fmt.Errorf("%q: %w", f.Path, ErrUnportable)
		}
	}
	return t, nil
}

func (t *Tree) matchesAny(pat string) bool {
	for _, f := range t.Files {
		if Matches([]string{pat}, f.Path) {
			return true
		}
	}
	return false
}

// scan walks dir through an os.Root, so no open can leave it, and hashes the
// files in scope. more adds skill folders the tree itself may no longer mark
// (a lock's), so deleting a SKILL.md never takes its folder out of scope.
func scan(dir string, include, more []string) (*Tree, error) {
	// os.OpenRoot opens without O_NONBLOCK: given a FIFO it would wait for
	// a writer, so anything but a folder is refused before it is opened.
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotDir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var all []string
	links := map[string]string{}
	skill := map[string]bool{}
	for _, f := range more {
		skill[f] = true
	}
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == ".git" {
			// The checkout's own version-control metadata is not part
			// of the distribution. Only at the top: a .git deeper down,
			// in a skill folder above all, is files the agent may be
			// told to run, and is pinned and checked like any other.
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			// Checked wherever it lies, in scope or not: a link out
			// of the tree is refused as it always was.
			target, err := inTreeLink(root, p)
			if err != nil {
				return err
			}
			links[p] = target
		case t.IsDir():
			return nil
		case !t.IsRegular():
			return fmt.Errorf("%s: %w", p, ErrNotRegular)
		}
		if strings.EqualFold(path.Base(p), SkillFile) {
			// Any case, so a case-insensitive disk cannot hide a skill.
			skill[path.Dir(p)] = true
		}
		all = append(all, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	t := &Tree{}
	for f := range skill {
		t.SkillFolders = append(t.SkillFolders, f)
	}
	sort.Strings(t.SkillFolders)
	sort.Strings(all)
	for _, p := range all {
		inSkill := underAny(skill, p)
		if !inSkill && !Matches(include, p) {
			t.Uncovered = append(t.Uncovered, p)
			continue
		}
		if !inSkill {
			t.ByPattern++
		}
		if target, ok := links[p]; ok {
			// What it leads to must be pinned too: a SKILL.md that is a
			// link to a file outside every skill folder was pinned as
			// its target string only, and its text changed unnoticed.
			if to, ok := unpinnedTarget(dir, p, skill, include); ok {
				return nil, fmt.Errorf("%s -> %s leads to %s: %w; pin it (--include %s) or move it into the skill folder", p, target, to, ErrUnpinnedTarget, to)
			}
			t.Files = append(t.Files, File{Path: p, Link: target})
			continue
		}
		f, err := hash(root, p)
		if err != nil {
			return nil, err
		}
		t.Files = append(t.Files, f)
	}
	return t, nil
}

// unpinnedTarget returns the first file that the link p of the checkout
// dir leads to that neither a skill folder nor an include pattern covers,
// a path into the top-level .git (never walked, never pinned), or the
// folder it leads to when that is the checkout or a folder holding the
// link (everything beside the skill folders would be read through it);
// ok false when every file it leads to is pinned. The target is resolved
// by the system (filepath.EvalSymlinks: each link where it stands, ".."
// after it, as a read would), and a folder is walked, each link in it
// followed the same way, each folder once.
func unpinnedTarget(dir, p string, skill map[string]bool, include []string) (string, bool) {
	top, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return p, true
	}
	covered := func(f string) bool { return underAny(skill, f) || Matches(include, f) }
	seen := map[string]bool{}
	var check func(link string) (string, bool)
	check = func(link string) (string, bool) {
		real, err := filepath.EvalSymlinks(link)
		if err != nil {
			return relTo(top, link), true
		}
		to := relTo(top, real)
		switch {
		case to == "" || to == "." || to == ".." || strings.HasPrefix(to, "../"):
			return ".", true
		case to == ".git" || strings.HasPrefix(to, ".git/"):
			return to, true
		case strings.HasPrefix(filepath.ToSlash(p)+"/", to+"/"):
			return to, true // a folder holding the link itself
		}
		info, err := os.Stat(real)
		if err != nil {
			return to, true
		}
		if !info.IsDir() {
			if !covered(to) {
				return to, true
			}
			return "", false
		}
		if seen[real] {
			return "", false
		}
		seen[real] = true
		var bad string
		filepath.WalkDir(real, func(f string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				bad = relTo(top, f)
			case d.Type()&fs.ModeSymlink != 0:
				if to, unpinned := check(f); unpinned {
					bad = to
				}
			case d.Type().IsRegular():
				if r := relTo(top, f); !covered(r) {
					bad = r
				}
			}
			if bad != "" {
				return fs.SkipAll
			}
			return nil
		})
		return bad, bad != ""
	}
	return check(filepath.Join(dir, filepath.FromSlash(p)))
}

// relTo is path, a real path under top, relative to it with slashes ("" when
// it is none).
func relTo(top, path string) string {
	rel, err := filepath.Rel(top, path)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// inTreeLink returns the target of the symlink p when the link stays inside
// the tree: a relative target that, joined to p's folder, never climbs out,
// and that the root resolves (through any other links) to something that
// exists, without leaving it.
func inTreeLink(root *os.Root, p string) (string, error) {
	target, err := root.Readlink(p)
	if err != nil {
		return "", err
	}
	slash := filepath.ToSlash(target)
	// The root itself (".") is inside: a link to an ancestor folder makes
	// a loop, which the loader reports, not a way out.
	joined := path.Join(path.Dir(p), slash)
	if target == "" || path.IsAbs(slash) || filepath.IsAbs(target) || filepath.VolumeName(target) != "" ||
		joined == ".." || strings.HasPrefix(joined, "../") {
		return "", fmt.Errorf("%s -> %s: %w", p, target, ErrSymlink)
	}
	// Lexically inside is not enough: "l/../x", with l a link to ".",
	// resolves above the root. os.Root follows links and refuses any
	// step out of it. A dangling link is refused too: where it points
	// cannot be told apart from a way out once the tree moves.
	if _, err := root.Stat(p); err != nil {
		return "", fmt.Errorf("%s -> %s: %w: %v", p, target, ErrSymlink, err)
	}
	return target, nil
}

// underAny reports whether the file p lies in one of the folders or below it.
// It stops at the top, whatever p is: path.Dir of "/" is "/" and of "." is
// ".", so the walk ends when a step no longer changes the folder.
func underAny(folders map[string]bool, p string) bool {
	for d := path.Dir(p); ; d = path.Dir(d) {
		if folders[d] {
			return true
		}
		if d == "." || d == "/" || path.Dir(d) == d {
			return false
		}
	}
}

// hash digests one file. It opens without blocking and then checks that what
// it opened is the regular file it saw, so a file swapped for a FIFO or a
// symlink between the walk and the open is an error, never a hang.
func hash(root *os.Root, p string) (File, error) {
	before, err := root.Lstat(p)
	if err != nil {
		return File{}, err
	}
	if !before.Mode().IsRegular() {
		return File{}, fmt.Errorf("%s: %w", p, ErrChanged)
	}
	fh, err := root.OpenFile(p, safefs.ReadOnly, 0)
	if err != nil {
		return File{}, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return File{}, err
	}
	if !info.Mode().IsRegular() || !os.SameFile(before, info) {
		return File{}, fmt.Errorf("%s: %w", p, ErrChanged)
	}
	h := sha256.New()
	n, err := io.Copy(h, fh)
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", p, err)
	}
	return File{Path: p, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// Report lists how a checkout differs from its lock, and what it covered.
type Report struct {
	Missing []string `json:"missing"`
	Extra   []string `json:"extra"`
	Changed []string `json:"changed"`
	Checked int      `json:"checked"`
	// SkillFolders counts the skill folders pinned whole, from the lock
	// and the checkout together.
	SkillFolders int `json:"skill_folders"`
	// ByPattern counts the pinned files outside every skill folder, in
	// scope only through an include pattern.
	ByPattern int `json:"by_pattern"`
	// Uncovered lists the files of the checkout that nothing pins.
	Uncovered []string `json:"uncovered"`
}

// OK reports whether the checkout matches the lock exactly.
func (r *Report) OK() bool { return len(r.Missing)+len(r.Extra)+len(r.Changed) == 0 }

// Verify compares the files of dir in the lock's scope with the lock. The
// scope is that of Scan, with the lock's own skill folders added, so a skill
// folder stays in scope when its SKILL.md is deleted.
func Verify(dir string, l *Lock) (*Report, error) {
	if err := CheckPatterns(l.Include); err != nil {
		return nil, err
	}
	var locked []string
	for _, f := range l.Files {
		if strings.EqualFold(path.Base(f.Path), SkillFile) {
			locked = append(locked, path.Dir(f.Path))
		}
	}
	t, err := scan(dir, l.Include, locked)
	if err != nil {
		return nil, err
	}
	have := make(map[string]File, len(t.Files))
	for _, f := range t.Files {
		have[f.Path] = f
	}
	r := &Report{
		Missing: []string{}, Extra: []string{}, Changed: []string{},
		SkillFolders: len(t.SkillFolders), Uncovered: t.Uncovered,
	}
	if r.Uncovered == nil {
		r.Uncovered = []string{}
	}
	folders := make(map[string]bool, len(t.SkillFolders))
	for _, f := range t.SkillFolders {
		folders[f] = true
	}
	for _, want := range l.Files {
		f, ok := have[want.Path]
		switch {
		case !ok:
			r.Missing = append(r.Missing, want.Path)
		case f.SHA256 != want.SHA256 || f.Size != want.Size || f.Link != want.Link:
			r.Changed = append(r.Changed, want.Path)
		}
		if !underAny(folders, want.Path) {
			r.ByPattern++
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

// CheckPatterns reports the first include pattern that is empty, absolute,
// holds an empty, "." or ".." segment, or is not a valid path.Match pattern.
func CheckPatterns(patterns []string) error {
	seen := make(map[string]bool, len(patterns))
	for _, pat := range patterns {
		if seen[pat] {
			return fmt.Errorf("%q: %w: given more than once", pat, ErrBadPattern)
		}
		seen[pat] = true
		if pat == "" || strings.HasPrefix(pat, "/") {
			return fmt.Errorf("%q: %w", pat, ErrBadPattern)
		}
		for _, seg := range strings.Split(pat, "/") {
			if seg == "" || seg == "." || seg == ".." {
				return fmt.Errorf("%q: %w", pat, ErrBadPattern)
			}
			if _, err := path.Match(seg, ""); err != nil {
				return fmt.Errorf("%q: %w: %w", pat, ErrBadPattern, err)
			}
		}
	}
	return nil
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

// match reports whether the segments match the pattern segments. It fills a
// table of suffix matches, so patterns with many "**" cost the product of
// the two lengths, never an exponential search.
func match(pat, segs []string) bool {
	// ok[i][j]: pat[i:] matches segs[j:].
	ok := make([][]bool, len(pat)+1)
	for i := range ok {
		ok[i] = make([]bool, len(segs)+1)
	}
	ok[len(pat)][len(segs)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		for j := len(segs); j >= 0; j-- {
			switch {
			case pat[i] == "**":
				ok[i][j] = ok[i+1][j] || (j < len(segs) && ok[i][j+1])
			case j < len(segs):
				m, err := path.Match(pat[i], segs[j])
				ok[i][j] = err == nil && m && ok[i+1][j+1]
			}
		}
	}
	return ok[0][0]
}
