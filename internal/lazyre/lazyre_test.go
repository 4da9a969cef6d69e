package lazyre

import "testing"

func TestNewCompilesOnce(t *testing.T) {
	re := New(`a+b`)
	if re() != re() || !re().MatchString("aab") {
		t.Fatal("not one compiled pattern")
	}
	if err := CompileAll(); err != nil {
		t.Fatal(err)
	}
}

func TestCompileAllFindsABadPattern(t *testing.T) {
	bad := New(`(unclosed`)
	defer func() {
		mu.Lock()
		delete(patterns, `(unclosed`)
		mu.Unlock()
	}()
	if err := CompileAll(); err == nil {
		t.Fatal("a pattern that does not compile was not found")
	}
	defer func() {
		if recover() == nil {
			t.Error("using a bad pattern did not panic")
		}
	}()
	bad()
}
