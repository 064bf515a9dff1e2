//go:build unix

package loader

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// trusted knows whose folders above the working folder may hold the
// project's skills: this process's user's, root's, and those of the
// working folder's owner (a checkout a CI container's root works in
// belongs to the runner's user).
type trusted struct{ uids []int }

func newTrusted(cwd string) *trusted {
	t := &trusted{uids: []int{os.Geteuid(), 0}}
	if info, err := os.Stat(cwd); err == nil {
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			t.uids = append(t.uids, int(st.Uid))
		}
	}
	return t
}

// untrusted returns the first path of dir/rel, from dir down, that
// someone besides the trusted users could have changed, and who ("user
// 1001", "anyone"); "" when none. Each folder on the way (and what each
// link there leads to, and the link itself) must belong to a trusted user
// and not be writable by anyone; dir itself must not let anyone rename
// what it holds (writable by all without the sticky bit, which /tmp has).
// A folder its group may write in is trusted, as git trusts one: a user
// private group's umask (002, Debian's and Ubuntu's) makes every folder
// so, and a team's shared checkout is its group's to change, code and
// skills alike. (A folder made group-writable on purpose for a group
// of every local user, as macOS's staff is, is not told apart.)
func (t *trusted) untrusted(dir, rel string) (string, string) {
	if info, err := os.Stat(dir); err == nil && info.Mode()&os.ModeSticky == 0 {
		if who := writers(info); who != "" {
			return dir, who
		}
	}
	p := dir
	for _, part := range strings.Split(rel, "/") {
		p = filepath.Join(p, part)
		link, err := os.Lstat(p)
		if err != nil {
			return p, "no one it can tell" // gone since the look that found it
		}
		if who := t.owner(link); who != "" {
			return p, who
		}
		info := link
		if link.Mode()&os.ModeSymlink != 0 {
			if info, err = os.Stat(p); err != nil {
				return p, "no one it can tell"
			}
			if who := t.owner(info); who != "" {
				return p, who + " (where the link leads)"
			}
		}
		if who := writers(info); who != "" {
			return p, who
		}
	}
	return "", ""
}

// writers names who besides its owner and group may write in the folder
// info describes: "anyone", or "" for no one.
func writers(info os.FileInfo) string {
	if info.Mode().Perm()&0o002 != 0 {
		return "anyone"
	}
	return ""
}

// owner names the owner of info when it is not a trusted user, else "".
func (t *trusted) owner(info os.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || slices.Contains(t.uids, int(st.Uid)) {
		return ""
	}
	return "user " + strconv.Itoa(int(st.Uid))
}
