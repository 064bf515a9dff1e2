package loader

import (
	"io/fs"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// prestat holds the stats of the folders and SKILL.md files an earlier
// load recorded, taken on every core at the start of a load: discovery
// stats every one of them (a folder to know whether its listing is
// unchanged, a SKILL.md to know whether it is), one after another, and a
// stat is the most of what a start from a cache costs per skill. Each is
// taken before discovery reaches it, as its own would have been, and used
// once.
type prestat struct {
	lstat, stat map[string]int // path -> position in infos and errs
	infos       []fs.FileInfo
	errs        []error
}

// newPrestat stats every folder of prior (Lstat, as list does) and every
// unit's SKILL.md (Stat, as addSkill does); nil without a prior record.
func newPrestat(prior *Record) *prestat {
	if prior == nil {
		return nil
	}
	n := len(prior.Folders) + len(prior.Units)
	p := &prestat{lstat: make(map[string]int, len(prior.Folders)), stat: make(map[string]int, len(prior.Units)),
		infos: make([]fs.FileInfo, n), errs: make([]error, n)}
	paths := make([]string, n)
	for i := range prior.Folders {
		paths[i] = prior.Folders[i].Path
		p.lstat[paths[i]] = i
	}
	for i := range prior.Units {
		k := len(prior.Folders) + i
		paths[k] = prior.Units[i].Origin.FileReal
		p.stat[paths[k]] = k
	}
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= n {
					return
				}
				if k < len(prior.Folders) {
					p.infos[k], p.errs[k] = os.Lstat(paths[k])
				} else {
					p.infos[k], p.errs[k] = os.Stat(paths[k])
				}
			}
		}()
	}
	wg.Wait()
	return p
}

// take returns the stat of path taken ahead (from m, p.lstat or p.stat),
// once; ok is false when there is none, and the caller stats it.
func (p *prestat) take(m map[string]int, path string) (fs.FileInfo, error, bool) {
	if p == nil {
		return nil, nil, false
	}
	k, ok := m[path]
	if !ok {
		return nil, nil, false
	}
	delete(m, path)
	return p.infos[k], p.errs[k], true
}

// lstatFolder is os.Lstat of a folder, taken ahead when it was.
func (p *prestat) lstatFolder(path string) (fs.FileInfo, error) {
	if p != nil {
		if info, err, ok := p.take(p.lstat, path); ok {
			return info, err
		}
	}
	return os.Lstat(path)
}

// statFile is os.Stat of a SKILL.md, taken ahead when it was.
func (p *prestat) statFile(path string) (fs.FileInfo, error) {
	if p != nil {
		if info, err, ok := p.take(p.stat, path); ok {
			return info, err
		}
	}
	return os.Stat(path)
}
