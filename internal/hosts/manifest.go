package hosts

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// manifest records, per configuration file install changed, what uninstall
// needs to undo it exactly. It lives in the memex home the install was
// for (Options.Manifest).
type manifest struct {
	Files map[string]fileRecord `json:"files"`
	// Dirs are the directories install created to hold those files (a
	// project's .claude, OpenCode's plugins folder); uninstall removes
	// each once it is empty.
	Dirs []string `json:"dirs,omitempty"`
}

type fileRecord struct {
	Host string `json:"host"`
	// Created says the file did not exist before memex's first install.
	Created bool `json:"created,omitempty"`
	// Original is the backup of the file as the user had it before
	// memex's first install.
	Original string `json:"original,omitempty"`
	// Written is the sha256 of what install last wrote.
	Written string `json:"written"`
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func readManifest(path string) (manifest, error) {
	m := manifest{Files: map[string]fileRecord{}}
	if path == "" {
		return m, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %v (move it away to start a new one)", path, err)
	}
	if m.Files == nil {
		m.Files = map[string]fileRecord{}
	}
	return m, nil
}

func (m manifest) write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'), 0o600)
}

// Installed lists the configuration files the manifest at path records,
// with the host each was installed for.
func Installed(path string) (map[string]string, error) {
	m, err := readManifest(path)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(m.Files))
	for p, r := range m.Files {
		out[p] = r.Host
	}
	return out, nil
}
