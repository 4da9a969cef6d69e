package eval

import (
	"strings"
	"testing"
)

func TestParseKinds(t *testing.T) {
	if got, err := ParseKinds(" all "); err != nil || len(got) != len(AllKinds) {
		t.Errorf("all: %v %v", got, err)
	}
	if got, err := ParseKinds("read, grep"); err != nil || len(got) != 2 || got[0] != KindRead || got[1] != KindGrep {
		t.Errorf("read, grep: %v %v", got, err)
	}
	if _, err := ParseKinds("read,reads"); err == nil || !strings.Contains(err.Error(), `"reads" is no rule`) {
		t.Errorf("a name that is no rule: %v", err)
	}
}
