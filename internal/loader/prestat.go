package loader

import (
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// prestat holds the stats of the folders and SKILL.md files an earlier
// load recorded, taken on every core: discovery stats every one of them
// (a folder to know whether its listing is unchanged, a SKILL.md to know
// whether it is), one after another, and a stat is the most of what a
// start from a cache costs per skill. Each is taken before discovery
// reaches it, as its own would have been, and used once.
type prestat struct {
	lstat, stat map[string]int // path -> position in infos and errs
	infos       []fs.FileInfo
	errs        []error
	taken       []atomic.Bool // used once: the scans of several roots take them at once
	done        sync.WaitGroup
	// more holds the stats taken after StatAhead's, of the SKILL.md
	// files it could not name (nil: none).
	more *prestat
}

// StatAhead starts taking, on every core, the stats a load given rec as
// its Prior takes first (see prestat), so that they overlap with
// whatever the caller does before that load: package catcache calls it
// once rec's Folders and Scans are decoded, and decodes the units
// meanwhile. The next load given rec waits for them and uses them.
func (rec *Record) StatAhead() {
	rec.ahead.Store(startPrestat(rec.Folders, scanFiles(rec.Scans)))
}

// scanFiles returns the SKILL.md path of every skill of scans, as replay
// stats them.
func scanFiles(scans []*Scan) []string {
	var files []string
	for _, sc := range scans {
		if sc == nil {
			continue
		}
		for _, rel := range sc.Skills {
			if _, file, ok := skillPaths(sc.RootReal, rel); ok {
				files = append(files, file)
			}
		}
	}
	return files
}

// newPrestat returns the stats of every folder of prior (Lstat, as list
// does) and every unit's SKILL.md (Stat, as addSkill does), those
// StatAhead started when it did; nil without a prior record.
func newPrestat(prior *Record) *prestat {
	if prior == nil {
		return nil
	}
	p := prior.ahead.Swap(nil)
	if p == nil {
		files := make([]string, len(prior.Units))
		for i := range prior.Units {
			files[i] = prior.Units[i].Origin.FileReal
		}
		p = startPrestat(prior.Folders, files)
		p.done.Wait()
		return p
	}
	p.done.Wait()
	if slices.Contains(prior.Scans, nil) {
		// A root that cannot be replayed (a symlinked skill, say) is
		// walked, and its SKILL.md files, which StatAhead could not
		// name, are stat'ed ahead now, on every core, as before.
		var rest []string
		for i := range prior.Units {
			if f := prior.Units[i].Origin.FileReal; !hasKey(p.stat, f) {
				rest = append(rest, f)
			}
		}
		if len(rest) > 0 {
			p.more = startPrestat(nil, rest)
			p.more.done.Wait()
		}
	}
	return p
}

func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}

// startPrestat starts stat'ing folders (Lstat) and files (Stat) on every
// core; done ends when all are taken.
func startPrestat(folders []FolderRecord, files []string) *prestat {
	n := len(folders) + len(files)
	p := &prestat{infos: make([]fs.FileInfo, n), errs: make([]error, n), taken: make([]atomic.Bool, n)}
	paths := make([]string, n)
	for i := range folders {
		paths[i] = folders[i].Path
	}
	copy(paths[len(folders):], files)
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), n) {
		p.done.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= n {
					return
				}
				if k < len(folders) {
					p.infos[k], p.errs[k] = os.Lstat(paths[k])
				} else {
					p.infos[k], p.errs[k] = os.Stat(paths[k])
				}
			}
		})
	}
	// The lookups are built meanwhile, on a core of their own if there
	// is one.
	p.done.Go(func() {
		p.lstat, p.stat = make(map[string]int, len(folders)), make(map[string]int, len(files))
		for i, path := range paths {
			if i < len(folders) {
				p.lstat[path] = i
			} else {
				p.stat[path] = i
			}
		}
	})
	return p
}

// take returns the stat of path taken ahead (from m, p.lstat or p.stat),
// once; ok is false when there is none, or it was taken already, and the
// caller stats it. It is safe for concurrent use: m is only read.
func (p *prestat) take(m map[string]int, path string) (fs.FileInfo, error, bool) {
	if p == nil {
		return nil, nil, false
	}
	k, ok := m[path]
	if !ok || p.taken[k].Swap(true) {
		return nil, nil, false
	}
	return p.infos[k], p.errs[k], true
}

// lstatFolder is os.Lstat of a folder, taken ahead when it was.
func (p *prestat) lstatFolder(path string) (fs.FileInfo, error) {
	for ; p != nil; p = p.more {
		if info, err, ok := p.take(p.lstat, path); ok {
			return info, err
		}
	}
	return os.Lstat(path)
}

// statFile is os.Stat of a SKILL.md, taken ahead when it was.
func (p *prestat) statFile(path string) (fs.FileInfo, error) {
	for ; p != nil; p = p.more {
		if info, err, ok := p.take(p.stat, path); ok {
			return info, err
		}
	}
	return os.Stat(path)
}
