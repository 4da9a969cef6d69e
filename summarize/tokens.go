package summarize

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names memex's tokenizer: OpenAI's cl100k_base BPE, whose
// vocabulary ships inside the tokenizer module (no download, no network).
const Encoding = "cl100k_base"

var (
	codecOnce sync.Once
	codec     tokenizer.Codec
)

func cl100k() tokenizer.Codec {
	codecOnce.Do(func() {
		c, err := tokenizer.Get(tokenizer.Cl100kBase)
		if err != nil {
			panic("summarize: cl100k_base vocabulary missing from the tokenizer module: " + err.Error())
		}
		codec = c
	})
	return codec
}

// Count returns the number of cl100k_base tokens of b.
func Count(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n, err := cl100k().Count(string(b))
	if err != nil {
		return 0
	}
	return n
}

// CountString is Count for a string.
func CountString(s string) int { return Count([]byte(s)) }
