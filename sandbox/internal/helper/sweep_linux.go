package helper

import (
	"os"
	"syscall"
)

// killDescendants kills every process below this one and reaps what
// becomes its child, until none is left. Without a PID namespace it is how
// the helper, a child subreaper, makes sure nothing the program started
// outlives it: orphans of the program are reparented to the helper, so
// each round finds what a process forked before it was killed.
func killDescendants() {
	self := syscall.Getpid()
	for {
		below := Descendants(self, Parents())
		for _, pid := range below {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return // no child left
		}
	}
}

// Parents maps every visible process to its parent, from /proc.
func Parents() map[int]int {
	parents := map[int]int{}
	d, err := os.Open("/proc")
	if err != nil {
		return parents
	}
	names, _ := d.Readdirnames(-1)
	_ = d.Close()
	buf := make([]byte, 512)
	for _, name := range names {
		pid, ok := atoi(name)
		if !ok {
			continue
		}
		if ppid, ok := readPPid("/proc/"+name+"/stat", buf); ok {
			parents[pid] = ppid
		}
	}
	return parents
}

// readPPid reads the parent pid from a /proc/PID/stat file: the fourth
// field, after the command name in parentheses (which may hold anything).
func readPPid(path string, buf []byte) (int, bool) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	n, _ := syscall.Read(fd, buf)
	_ = syscall.Close(fd)
	if n <= 0 {
		return 0, false
	}
	b := buf[:n]
	i := len(b) - 1
	for i >= 0 && b[i] != ')' {
		i--
	}
	// ") S 1234 ..."
	if i < 0 || i+4 >= len(b) {
		return 0, false
	}
	j := i + 4
	k := j
	for k < len(b) && b[k] != ' ' {
		k++
	}
	return atoi(string(b[j:k]))
}

// Descendants returns every process below pid in parents.
func Descendants(pid int, parents map[int]int) []int {
	children := map[int][]int{}
	for p, pp := range parents {
		children[pp] = append(children[pp], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
