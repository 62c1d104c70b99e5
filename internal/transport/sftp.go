package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// Delivery over the sftp subsystem. OpenSSH configured with internal-sftp
// serves it inside sshd, and with the sftp-server program it is one
// process: writing the agent costs no sh, mkdir, cat, chmod or mv process
// on the node, and on a fleet of fresh nodes process starts are most of
// what delivery costs. The exec upload (commands.go) stays for sudo users,
// who cannot write agent_path themselves, and for servers without the
// subsystem or OpenSSH's posix-rename extension.

// errNoSFTP: the server offers no usable sftp subsystem; nothing was
// written.
var errNoSFTP = errors.New("no usable sftp subsystem")

const posixRenameExt = "posix-rename@openssh.com"

// KernelArchFile is the kernel's own copy of `uname -m` (recent kernels
// only): read over sftp it tells which build to ship without starting a
// process. Kernels without it get ArchCommand.
const KernelArchFile = "/proc/sys/kernel/arch"

// sftpSession is one sftp subsystem session on a connection.
type sftpSession struct {
	ctx  context.Context
	s    *ssh.Session
	cl   *sftp.Client
	stop func() bool
}

// openSFTP starts the sftp subsystem. errNoSFTP means the server has none
// (or lacks posix-rename, which the atomic replace needs).
func (c *conn) openSFTP(ctx context.Context) (*sftpSession, error) {
	s, err := c.client.NewSession()
	if err != nil {
		return nil, &sessionOpenError{c.connErr(fmt.Errorf("opening a session: %v", err))}
	}
	w, err := s.StdinPipe()
	var r io.Reader
	if err == nil {
		r, err = s.StdoutPipe()
	}
	if err == nil {
		err = s.RequestSubsystem("sftp")
		if err != nil {
			err = fmt.Errorf("%w: %v", errNoSFTP, err)
		}
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	// Closing the session unblocks every sftp call when ctx ends.
	stop := context.AfterFunc(ctx, func() { s.Close() })
	cl, err := sftp.NewClientPipe(r, w, sftpOptions(c.client.ServerVersion())...)
	if err == nil {
		if _, ok := cl.HasExtension(posixRenameExt); !ok {
			cl.Close()
			err = fmt.Errorf("%w: the server lacks %s", errNoSFTP, posixRenameExt)
		}
	} else {
		err = fmt.Errorf("%w: %v", errNoSFTP, err)
	}
	if err != nil {
		stop()
		s.Close()
		if ctx.Err() != nil {
			return nil, ctxErr(ctx, ctx.Err())
		}
		return nil, err
	}
	return &sftpSession{ctx: ctx, s: s, cl: cl, stop: stop}, nil
}

// sftpOptions: OpenSSH takes writes of up to 255 KiB (its limits@openssh.com
// says so); few large writes in flight cost its sftp server far less CPU
// than many small ones (a 3.5 MB agent: about 18 ms of sshd CPU against 51
// ms with 64 writes of 32 KiB in flight). Other servers get the 32 KiB the
// SFTP draft promises.
func sftpOptions(serverVersion []byte) []sftp.ClientOption {
	opts := []sftp.ClientOption{sftp.UseConcurrentWrites(true)}
	if bytes.HasPrefix(serverVersion, []byte("SSH-2.0-OpenSSH_")) {
		return append(opts, sftp.MaxPacketUnchecked(128<<10), sftp.MaxConcurrentRequestsPerFile(4))
	}
	return append(opts, sftp.MaxConcurrentRequestsPerFile(16))
}

func (ss *sftpSession) Close() {
	ss.cl.Close()
	ss.stop()
	ss.s.Close()
}

func (ss *sftpSession) fail(op string, err error) error {
	if ss.ctx.Err() != nil {
		return ctxErr(ss.ctx, ss.ctx.Err())
	}
	return fmt.Errorf("sftp: %s: %w", op, err)
}

// kernelArch reads KernelArchFile and maps it to a GOARCH.
func (ss *sftpSession) kernelArch() (string, error) {
	f, err := ss.cl.Open(KernelArchFile)
	if err != nil {
		return "", ss.fail("reading "+KernelArchFile, err)
	}
	defer f.Close()
	buf := make([]byte, 64)
	n, err := f.Read(buf)
	if n == 0 {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return "", ss.fail("reading "+KernelArchFile, err)
	}
	return parseArch(buf[:n])
}

// put writes data to agentPath: a temp file beside it (created
// exclusively), mode 0755, then an atomic rename over agentPath. The run
// that follows verifies the build with --expect-sha256; that first run of
// the build also clears temps older uploads left (the agent's keepSum),
// with no round trip from here.
func (ss *sftpSession) put(agentPath, tmpSuffix string, data []byte) error {
	tmp := agentPath + ".tmp-" + tmpSuffix
	err := ss.writeExecutable(tmp, os.O_EXCL, data)
	if err == nil {
		if err = ss.cl.PosixRename(tmp, agentPath); err != nil {
			_ = ss.cl.Remove(tmp)
		}
	}
	if err != nil {
		return ss.fail("writing "+agentPath, err)
	}
	return nil
}

// putTemp writes data to agent_path's UploadTempSuffix file, mode 0755,
// for a waiting ServeOrUploadCommand: the agent verifies and installs
// itself from there. The fixed name is truncated, not created anew: a
// leftover of a dropped delivery is reused.
func (ss *sftpSession) putTemp(agentPath string, data []byte) error {
	tmp := agentPath + UploadTempSuffix
	if err := ss.writeExecutable(tmp, os.O_TRUNC, data); err != nil {
		return ss.fail("writing "+tmp, err)
	}
	return nil
}

// writeExecutable writes data to name (its folder made first), mode 0755;
// flag is O_EXCL or O_TRUNC. A file it could not finish is removed.
func (ss *sftpSession) writeExecutable(name string, flag int, data []byte) error {
	cl := ss.cl
	if err := cl.MkdirAll(path.Dir(name)); err != nil {
		return fmt.Errorf("creating %s: %w", path.Dir(name), err)
	}
	f, err := cl.OpenFile(name, os.O_WRONLY|os.O_CREATE|flag)
	if err != nil {
		return fmt.Errorf("creating %s: %w", name, err)
	}
	_, err = f.ReadFrom(bytes.NewReader(data))
	if err == nil {
		err = f.Chmod(0o755)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = cl.Remove(name)
	}
	return err
}
