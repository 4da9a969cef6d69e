package home

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/spool"
)

// Server is what serve.addr says of a running server: the address to dial
// and, when it requires one, the bearer token's file and the token read
// from it.
type Server struct {
	Addr      string
	TokenPath string
	Token     string
	// Key is the owner's key the server accepts from processes that can
	// read the home (api.KeyHeader), from serve.key.
	Key string
}

// ReadServer reads dir's serve.addr. ok is false when there is none (no
// server was started, or it stopped cleanly); whether the server named
// still answers is the caller's to find out (a killed one leaves its file).
//
// The file's first line is the address (host:port), its second, present
// only when the server requires a token, the token file's absolute path
// (documented in memex serve --help: scripts read the first line).
func ReadServer(dir string) (Server, bool) {
	b, err := os.ReadFile(filepath.Join(dir, ServerFile))
	if err != nil {
		return Server{}, false
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	srv := Server{Addr: strings.TrimSpace(lines[0])}
	if srv.Addr == "" {
		return Server{}, false
	}
	if len(lines) > 1 {
		srv.TokenPath = strings.TrimSpace(lines[1])
		if tok, err := os.ReadFile(srv.TokenPath); err == nil {
			srv.Token = strings.TrimSpace(string(tok))
		}
	}
	if key, err := os.ReadFile(filepath.Join(dir, KeyFile)); err == nil {
		srv.Key = strings.TrimSpace(string(key))
	}
	return srv, true
}

// WriteServer names the server at addr (and its token file, "" for none)
// in dir's serve.addr, mode 0600, renamed into place so that a client
// never reads the address of one server with the token of another; key
// (NewKey's) goes to serve.key (0600) first.
func WriteServer(dir, addr, tokenPath, key string) error {
	ktmp := filepath.Join(dir, KeyFile+".tmp")
	if err := os.WriteFile(ktmp, []byte(key+"\n"), 0o600); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if err := os.Rename(ktmp, filepath.Join(dir, KeyFile)); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return writeServerFile(dir, addr, tokenPath)
}

// NewKey returns a new random owner key.
func NewKey() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

func writeServerFile(dir, addr, tokenPath string) error {
	tmp := filepath.Join(dir, ServerFile+".tmp")
	content := addr + "\n"
	if tokenPath != "" {
		if abs, err := filepath.Abs(tokenPath); err == nil {
			tokenPath = abs
		}
		content += tokenPath + "\n"
	}
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, ServerFile))
}

// RemoveServer removes serve.addr if it still names addr (a second server
// started by mistake must not remove the first one's).
func RemoveServer(dir, addr string) {
	if srv, ok := ReadServer(dir); ok && srv.Addr == addr {
		os.Remove(filepath.Join(dir, ServerFile))
		os.Remove(filepath.Join(dir, KeyFile))
	}
}

// MinToken is the shortest bearer token a server accepts.
const MinToken = 16

// Token returns the bearer token in path, or, when path is "", in dir's
// token file, created (mode 0600, 32 random bytes in hex) when missing;
// created reports that it was. A token shorter than MinToken is
// memex.ErrInvalid.
func Token(dir, path string) (tok, file string, created bool, err error) {
	file = path
	if file == "" {
		file = filepath.Join(dir, TokenFile)
		if _, serr := os.Stat(file); errors.Is(serr, os.ErrNotExist) {
			if err := writeToken(file); err != nil {
				return "", "", false, err
			}
			created = true
		} else if err := spool.Tighten(file, 0o600); err != nil {
			return "", "", false, err
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", "", false, fmt.Errorf("serve: token: %w", err)
	}
	tok = strings.TrimSpace(string(b))
	if len(tok) < MinToken {
		return "", file, false, fmt.Errorf("token file %s holds no token of at least %d characters: %w", file, MinToken, memex.ErrInvalid)
	}
	return tok, file, created, nil
}

// writeToken creates path with a new random token, readable by its owner
// only. It fails if the file appeared meanwhile.
func writeToken(path string) error {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("serve: create token: %w", err)
	}
	_, err = f.WriteString(hex.EncodeToString(b[:]) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
