package labnode

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/pkg/sftp"
)

// The sftp subsystem, as OpenSSH's internal-sftp serves it: file
// operations inside the node folder, with no process started. Paths are
// the node's absolute paths, mapped into its root like every command's.

type sftpFS struct{ n *Node }

func (h sftpFS) handlers() sftp.Handlers {
	return sftp.Handlers{FileGet: h, FilePut: h, FileCmd: h, FileList: h}
}

func (h sftpFS) rel(p string) (string, error) {
	if p == "" {
		p = "/"
	}
	return rel(path.Clean("/" + p))
}

func (h sftpFS) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	p, err := h.rel(r.Filepath)
	if err != nil {
		return nil, err
	}
	// The kernel's copy of `uname -m`: the node's architecture, as the
	// lab's uname prints it.
	if p == "proc/sys/kernel/arch" {
		if h.n.Faults().NoKernelArch {
			return nil, fs.ErrNotExist
		}
		return strings.NewReader(h.n.Arch() + "\n"), nil
	}
	return h.n.root.Open(p)
}

func (h sftpFS) Filewrite(r *sftp.Request) (io.WriterAt, error) {
	return h.OpenFile(r)
}

// OpenFile honours the open flags (the transport creates its temp file
// with O_EXCL).
func (h sftpFS) OpenFile(r *sftp.Request) (sftp.WriterAtReaderAt, error) {
	p, err := h.rel(r.Filepath)
	if err != nil {
		return nil, err
	}
	pf := r.Pflags()
	flags := os.O_RDONLY
	switch {
	case pf.Read && pf.Write:
		flags = os.O_RDWR
	case pf.Write:
		flags = os.O_WRONLY
	}
	if pf.Creat {
		flags |= os.O_CREATE
	}
	if pf.Trunc {
		flags |= os.O_TRUNC
	}
	if pf.Excl {
		flags |= os.O_EXCL
	}
	if pf.Append {
		flags |= os.O_APPEND
	}
	mode := os.FileMode(0o644)
	if r.AttrFlags().Permissions {
		mode = r.Attributes().FileMode().Perm()
	}
	f, err := h.n.root.OpenFile(p, flags, mode)
	if err == nil {
		h.n.sftpWrites.Add(1)
	}
	return f, err
}

func (h sftpFS) Filecmd(r *sftp.Request) error {
	p, err := h.rel(r.Filepath)
	if err != nil {
		return err
	}
	root := h.n.root
	switch r.Method {
	case "Setstat":
		fl, a := r.AttrFlags(), r.Attributes()
		if fl.Permissions {
			if err := root.Chmod(p, a.FileMode().Perm()); err != nil {
				return err
			}
		}
		if fl.Size {
			f, err := root.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(int64(a.Size))
		}
		return nil
	case "Rename":
		// SFTP v3 rename does not replace an existing file.
		t, err := h.rel(r.Target)
		if err != nil {
			return err
		}
		if _, err := root.Lstat(t); err == nil {
			return fs.ErrExist
		}
		return root.Rename(p, t)
	case "Mkdir":
		return root.Mkdir(p, 0o755)
	case "Rmdir", "Remove":
		return root.Remove(p)
	}
	return sftp.ErrSSHFxOpUnsupported
}

// PosixRename is posix-rename@openssh.com: rename over an existing file,
// atomically.
func (h sftpFS) PosixRename(r *sftp.Request) error {
	p, err := h.rel(r.Filepath)
	if err != nil {
		return err
	}
	t, err := h.rel(r.Target)
	if err != nil {
		return err
	}
	return h.n.root.Rename(p, t)
}

func (h sftpFS) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	p, err := h.rel(r.Filepath)
	if err != nil {
		return nil, err
	}
	switch r.Method {
	case "Stat":
		fi, err := h.n.root.Stat(p)
		if err != nil {
			return nil, err
		}
		return listerAt{fi}, nil
	case "List":
		d, err := h.n.root.Open(p)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		fis, err := d.Readdir(-1)
		if err != nil {
			return nil, err
		}
		return listerAt(fis), nil
	}
	return nil, sftp.ErrSSHFxOpUnsupported
}

// Lstat keeps symlinks as they are (the node's own view).
func (h sftpFS) Lstat(r *sftp.Request) (sftp.ListerAt, error) {
	p, err := h.rel(r.Filepath)
	if err != nil {
		return nil, err
	}
	fi, err := h.n.root.Lstat(p)
	if err != nil {
		return nil, err
	}
	return listerAt{fi}, nil
}

type listerAt []os.FileInfo

func (l listerAt) ListAt(out []os.FileInfo, off int64) (int, error) {
	if off >= int64(len(l)) {
		return 0, io.EOF
	}
	n := copy(out, l[off:])
	if n < len(out) || off+int64(n) >= int64(len(l)) {
		return n, io.EOF
	}
	return n, nil
}

// serveSFTP serves one sftp session on ch until the client closes it.
func (n *Node) serveSFTP(ch io.ReadWriteCloser) int {
	srv := sftp.NewRequestServer(ch, sftpFS{n}.handlers())
	err := srv.Serve()
	srv.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return 1
	}
	return 0
}
