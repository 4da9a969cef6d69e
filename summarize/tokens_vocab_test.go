package summarize

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

var updateVocab = flag.Bool("update-vocab", false, "rewrite cl100k.bin from the tokenizer module")

// moduleVocab reads every cl100k_base token back from the tiktoken-go
// tokenizer module by decoding its ID alone.
func moduleVocab(t *testing.T) []string {
	codec, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	toks := make([]string, vocabSize)
	ids := make([]uint, 1)
	for id := range toks {
		ids[0] = uint(id)
		tok, err := codec.Decode(ids)
		if err != nil || tok == "" || len(tok) > 255 {
			t.Fatalf("token %d: %q, %v", id, tok, err)
		}
		toks[id] = tok
	}
	return toks
}

// TestEmbeddedVocabulary checks that cl100k.bin holds exactly the
// module's vocabulary, in rank order. Run with -update-vocab to rewrite it.
func TestEmbeddedVocabulary(t *testing.T) {
	want := encodeVocab(moduleVocab(t))
	if *updateVocab {
		if err := os.WriteFile("cl100k.bin", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(vocabData, want) {
		t.Fatalf("cl100k.bin differs from the tokenizer module's vocabulary (%d vs %d bytes); run: go test ./summarize -run TestEmbeddedVocabulary -update-vocab",
			len(vocabData), len(want))
	}
	if _, err := parseVocab(vocabData); err != nil {
		t.Fatal(err)
	}
	if _, err := parseVocab(vocabData[:len(vocabData)-1]); err == nil {
		t.Fatal("a truncated vocabulary parsed")
	}
}

// BenchmarkVocabLoad is the first-use cost a new process pays before its
// first count: parsing the embedded vocabulary and building the tables.
func BenchmarkVocabLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		toks, err := parseVocab(vocabData)
		if err != nil {
			b.Fatal(err)
		}
		newRankTable(toks)
	}
}
