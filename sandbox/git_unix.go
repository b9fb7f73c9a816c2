//go:build linux || darwin

package sandbox

import "golang.org/x/sys/unix"

// gitCacheable says whether config reads are cached here: only where a
// file's change time (which no one can set back) is known.
const gitCacheable = true

// statID is what identifies a version of the file at path (followed, as
// git follows it): device, inode, size, mode, and the modification and
// change times to the nanosecond; a directory's device, inode and mode. A
// missing file has the zero ID.
func statID(path string) fileID {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fileID{}
	}
	id := fileID{exists: true, dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode)} //nolint:unconvert // field types differ between systems
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return id // a directory is the same while it is the same inode: git writes its index into .git on every status
	}
	id.size, id.mtime, id.ctime = st.Size, st.Mtim.Nano(), st.Ctim.Nano()
	return id
}
