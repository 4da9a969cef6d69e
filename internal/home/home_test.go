package home

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

func addNote(t *testing.T, h *Home, text string) memex.ID {
	t.Helper()
	e, err := h.Store.Add(context.Background(), memex.Entry{Kind: memex.KindNote}, strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return e.ID
}

func TestReadersShareAndCreateNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := addNote(t, w, "hello\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var readers []*Home
	for range 3 {
		r, err := Open(ctx, dir, Options{Shared: true, Wait: -1})
		if err != nil {
			t.Fatalf("reader %d beside %d others: %v", len(readers), len(readers), err)
		}
		readers = append(readers, r)
	}
	for _, r := range readers {
		if b, err := r.Store.ReadAll(ctx, id); err != nil || string(b) != "hello\n" {
			t.Fatalf("read %q, %v", b, err)
		}
	}
	// A writer waits for the readers, and says it is busy when they stay.
	if _, err := Open(ctx, dir, Options{Wait: -1}); !errors.Is(err, memex.ErrBusy) {
		t.Fatalf("writer beside readers: %v, want ErrBusy", err)
	}
	for _, r := range readers {
		r.Close()
	}
	if _, err := readers[0].Index(); err == nil {
		t.Error("a reader opened the index")
	}
}

func TestReaderOfAHomeWithoutStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mistyped")
	_, err := Open(context.Background(), dir, Options{Shared: true})
	if !errors.Is(err, ErrNoStore) || !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("got %v, want ErrNoStore", err)
	}
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("%q does not name the home", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a reader created %s", dir)
	}
}

func TestWritersTakeTurnsAndLoseNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const writers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Go(func() {
			for range each {
				h, err := Open(ctx, dir, Options{})
				if err != nil {
					errs <- err
					return
				}
				_, err = h.Store.Add(ctx, memex.Entry{Kind: memex.KindNote}, strings.NewReader("x"))
				if cerr := h.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	h, err := Open(ctx, dir, Options{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	st, err := h.Store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries != writers*each {
		t.Fatalf("%d entries, want %d", st.Entries, writers*each)
	}
}

func TestWaiterHearsWhoHoldsTheLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := Open(ctx, dir, Options{Purpose: "memex ingest"})
	if err != nil {
		t.Fatal(err)
	}
	heard := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		r, err := Open(ctx, dir, Options{Shared: true, Wait: time.Minute, OnWait: func(h string) { heard <- h }})
		if err == nil {
			r.Close()
		}
		done <- err
	}()
	holder := <-heard // the reader is waiting: WaitNotice has passed
	if want := "memex ingest"; !strings.Contains(holder, want) || !strings.Contains(holder, "pid ") {
		t.Errorf("holder %q, want the pid and %q", holder, want)
	}
	w.Close()
	if err := <-done; err != nil {
		t.Fatalf("the reader did not get the lock once released: %v", err)
	}
	if got := Holder(dir); got != "another memex process" {
		t.Errorf("after release Holder = %q", got)
	}
}

func TestBusyNamesTheHolder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := Open(ctx, dir, Options{Purpose: "memex reindex"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, err = Open(ctx, dir, Options{Wait: time.Millisecond})
	if !errors.Is(err, memex.ErrBusy) || !strings.Contains(err.Error(), "memex reindex") {
		t.Fatalf("got %v, want ErrBusy naming memex reindex", err)
	}
}

func TestCloseTwice(t *testing.T) {
	h, err := Open(context.Background(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Index(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestModesAreTightenedWhateverTheHome(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{StoreDir, SpoolDir} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, TokenFile), []byte("0123456789abcdef0123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Modes(dir)
	if err != nil || len(got) != 3 {
		t.Fatalf("Modes before = %v, %v; want store, spool and token", got, err)
	}
	if !strings.Contains(got[0].Message(), "other users can read it") {
		t.Errorf("problem reads %q", got[0])
	}
	h, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Index(); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if got, err := Modes(dir); err != nil || len(got) != 0 {
		t.Fatalf("Modes after a writer's Open = %v, %v", got, err)
	}
	for _, c := range []struct {
		name string
		want os.FileMode
	}{{StoreDir, 0o700}, {IndexDir, 0o700}, {SpoolDir, 0o700}, {TokenFile, 0o600}} {
		fi, err := os.Stat(filepath.Join(dir, c.name))
		if err != nil || fi.Mode().Perm() != c.want {
			t.Errorf("%s: %v, %v; want %o", c.name, fi.Mode().Perm(), err, c.want)
		}
	}
}

func TestServerFileAndToken(t *testing.T) {
	dir := t.TempDir()
	if _, ok := ReadServer(dir); ok {
		t.Fatal("a server without serve.addr")
	}
	tok, file, created, err := Token(dir, "")
	if err != nil || !created || len(tok) < MinToken {
		t.Fatalf("Token = %q, %v, %v", tok, created, err)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("token mode %o", fi.Mode().Perm())
	}
	if again, _, created, _ := Token(dir, ""); again != tok || created {
		t.Error("a second Token made another token")
	}
	key, err := NewKey()
	if err != nil || len(key) < 32 {
		t.Fatal(key, err)
	}
	if err := WriteServer(dir, "127.0.0.1:7077", file, key); err != nil {
		t.Fatal(err)
	}
	srv, ok := ReadServer(dir)
	if !ok || srv.Addr != "127.0.0.1:7077" || srv.Token != tok || srv.TokenPath != file || srv.Key != key {
		t.Fatalf("ReadServer = %+v, %v", srv, ok)
	}
	RemoveServer(dir, "127.0.0.1:9999")
	if _, ok := ReadServer(dir); !ok {
		t.Fatal("RemoveServer removed another server's file")
	}
	if got, _ := Modes(dir); len(got) != 0 {
		t.Errorf("modes: %v", got)
	}
	RemoveServer(dir, "127.0.0.1:7077")
	if _, ok := ReadServer(dir); ok {
		t.Fatal("serve.addr left behind")
	}
	if _, err := os.Stat(filepath.Join(dir, KeyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("serve.key left behind")
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc"), 0o600)
	if _, _, _, err := Token(dir, short); !errors.Is(err, memex.ErrInvalid) {
		t.Errorf("short token: %v", err)
	}
}
