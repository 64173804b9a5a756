package serve

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"charm.land/ssh"
	"github.com/pkg/sftp"
)

// sftpHandler serves the session's own folder read-only over SFTP, which
// OpenSSH's scp (version 9 on) and sftp speak: a participant downloads
// the exports. Every path is confined to the folder, links resolved; every
// write, rename, removal and link is refused.
func (s *Server) sftpHandler(sess ssh.Session) {
	se, err := s.open(sess)
	if err != nil {
		_ = sess.Exit(exitInternal)
		return
	}
	defer s.close(se)
	s.log.Info("sftp opened", "session", logID(se.id), "remote", se.remote)
	h := readOnlyFS{root: se.dir}
	srv := sftp.NewRequestServer(sess, sftp.Handlers{FileGet: h, FilePut: h, FileCmd: h, FileList: h})
	if err := srv.Serve(); err != nil && !errors.Is(err, io.EOF) {
		s.log.Info("sftp ended", "session", logID(se.id), "err", err)
	}
	_ = srv.Close()
}

// readOnlyFS is the SFTP view of one folder: "/" is the folder.
type readOnlyFS struct{ root string }

// path confines an SFTP path (absolute, "/" being the folder) to the folder.
func (f readOnlyFS) path(p string) (string, error) {
	rel := strings.TrimLeft(p, "/")
	if rel == "" {
		rel = "."
	}
	real, err := Confine(f.root, rel)
	if err != nil {
		return "", sftp.ErrSSHFxPermissionDenied
	}
	return real, nil
}

// Fileread opens a regular file for reading.
func (f readOnlyFS) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	p, err := f.path(r.Filepath)
	if err != nil {
		return nil, err
	}
	file, err := os.Open(p)
	if err != nil {
		return nil, sftp.ErrSSHFxNoSuchFile
	}
	if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
		file.Close()
		return nil, sftp.ErrSSHFxPermissionDenied
	}
	return file, nil
}

// Filewrite refuses: the view is read-only.
func (readOnlyFS) Filewrite(*sftp.Request) (io.WriterAt, error) {
	return nil, sftp.ErrSSHFxPermissionDenied
}

// Filecmd refuses every change (setstat, rename, remove, mkdir, links).
func (readOnlyFS) Filecmd(*sftp.Request) error { return sftp.ErrSSHFxPermissionDenied }

// Filelist answers List and Stat; Readlink is refused (a link's target
// may name what lies outside).
func (f readOnlyFS) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	p, err := f.path(r.Filepath)
	if err != nil {
		return nil, err
	}
	switch r.Method {
	case "List":
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, sftp.ErrSSHFxNoSuchFile
		}
		infos := make(listing, 0, len(entries))
		for _, e := range entries {
			if info, err := e.Info(); err == nil {
				infos = append(infos, info)
			}
		}
		return infos, nil
	case "Stat":
		info, err := os.Stat(p)
		if err != nil {
			return nil, sftp.ErrSSHFxNoSuchFile
		}
		return listing{info}, nil
	}
	return nil, sftp.ErrSSHFxOpUnsupported
}

// listing is a ListerAt over a slice.
type listing []fs.FileInfo

// ListAt copies the entries from offset into ls.
func (l listing) ListAt(ls []fs.FileInfo, offset int64) (int, error) {
	if offset >= int64(len(l)) {
		return 0, io.EOF
	}
	n := copy(ls, l[offset:])
	if n < len(ls) {
		return n, io.EOF
	}
	return n, nil
}
