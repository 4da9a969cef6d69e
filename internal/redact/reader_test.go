package redact

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReaderMatchesRedact(t *testing.T) {
	var in bytes.Buffer
	for i := 0; in.Len() < 3*chunkSize; i++ {
		in.WriteString("ok line with nothing secret in it, number ")
		in.WriteString(strings.Repeat("x", i%100))
		in.WriteString("\n")
		if i%997 == 0 {
			in.WriteString("export GITHUB_TOKEN=" + ghToken + "\n")
		}
		if i%4001 == 0 {
			in.WriteString(pemKey + "\n")
		}
	}
	// Put a key block across the first chunk boundary.
	data := in.Bytes()
	cut := bytes.LastIndexByte(data[:chunkSize], '\n') - 40
	data = append(data[:cut:cut], append([]byte("\n"+pemKey+"\n"), data[cut:]...)...)

	want, wn, _ := Redact(data)
	r := NewReader(iotest.HalfReader(bytes.NewReader(data)))
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || r.N != wn {
		t.Fatalf("stream redaction differs: %d vs %d bytes, %d vs %d redactions", len(got), len(want), r.N, wn)
	}
	if bytes.Contains(got, []byte("MIIEpAIBAAKCAQEA")) || bytes.Contains(got, []byte(ghToken)) {
		t.Fatal("a secret survived the stream")
	}
}

func TestReaderLongLine(t *testing.T) {
	data := bytes.Repeat([]byte("a"), chunkSize+maxLineTail+10)
	got, err := io.ReadAll(NewReader(bytes.NewReader(data)))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("long line changed: %v", err)
	}
}

func BenchmarkReader(b *testing.B) {
	in := benchInput(b)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		io.Copy(io.Discard, NewReader(bytes.NewReader(in)))
	}
}
