package summarize

import (
	"strings"

	"github.com/memex-archive/memex/internal/lazyre"
)

// Stack-trace summaries: the exception (type and message) and the innermost
// frame of the project's own code, skipping frames of the language runtime,
// the standard library and installed dependencies, which are rarely where
// the fix goes.

var (
	rePyFrame    = lazyre.New(`^\s*File "([^"]+)", line (\d+)(?:, in (.+))?`)
	rePyExc      = lazyre.New(`^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Fault|Iteration|Timeout|NotFound|Denied|Invalid))(?::\s*(.*))?$`)
	rePyExcLoose = lazyre.New(`^([A-Za-z_][\w.]*[A-Za-z])(?::\s+(.+))?$`)
	reGoFrameLoc = lazyre.New(`^\t(\S+\.go):(\d+)`)
	reJavaExc    = lazyre.New(`^(?:Exception in thread "[^"]*" |Caused by: )?((?:[a-zA-Z_$][\w$]*\.)+[\w$]*(?:Exception|Error|Throwable|Failure)[\w$]*)(?::\s*(.*))?$`)
	reJavaFrame  = lazyre.New(`^\s+at ([\w$.<>/]+)\(([^)]*)\)`)
	reJSExc      = lazyre.New(`^(?:Uncaught )?([A-Z]\w*(?:Error|Exception))(?::\s*(.*))?$`)
	reJSFrame    = lazyre.New(`^\s+at (?:(.+?) \()?(.+?):(\d+):\d+\)?$`)
)

func stackTrace(d *doc) string {
	if d.marked(mTraceback) {
		if ex, at := pythonException(d.lines); ex != "" {
			return joinAt(ex, at)
		}
	}
	if !d.marked(mPanic | mAt) {
		return ""
	}
	if s := goPanic(d.lines); s != "" {
		return s
	}
	if s := rustPanic(d.lines); s != "" {
		return s
	}
	if d.marked(mAt) {
		if s := javaException(d.lines); s != "" {
			return s
		}
		if s := jsError(d.lines); s != "" {
			return s
		}
	}
	return ""
}

func joinAt(ex, at string) string {
	if at == "" {
		return ex
	}
	return ex + " at " + at
}

// pythonException finds the last traceback in lines and returns its
// exception line and the innermost frame of project code ("path:line in
// func"). With no traceback header it returns the first exception-looking
// line at column 0 (a unittest block after its header).
func pythonException(lines []string) (exc, at string) {
	start := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "Traceback (most recent call last)") {
			start = i
			break
		}
	}
	if start < 0 {
		start = 0
	}
	var frames []string
	lastFrame := start
	for i := start + 1; i < len(lines); i++ {
		l := lines[i]
		if m := matchIf(rePyFrame(), l, `File "`); m != nil {
			loc := m[1] + ":" + m[2]
			if m[3] != "" {
				loc += " in " + strings.TrimSpace(m[3])
			}
			frames = append(frames, loc)
			lastFrame = i
			continue
		}
		if len(frames) > 0 && i > lastFrame+3 {
			break
		}
	}
	// The exception line follows the last frame (and its source line) at
	// column 0; output printed while the frames were unwinding can sit
	// between frames, so only lines after the last frame count.
	from := lastFrame + 1
	if len(frames) == 0 {
		from = start
	}
	for i := from; i < len(lines) && i < from+40; i++ {
		l := lines[i]
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		l = strings.TrimRight(l, " \r")
		if rePyExc().MatchString(l) {
			exc = l
			break
		}
		if exc == "" && len(frames) > 0 && rePyExcLoose().MatchString(l) && !strings.HasPrefix(l, "During handling") && !strings.HasPrefix(l, "The above exception") {
			exc = l
			break
		}
	}
	if exc == "" {
		return "", ""
	}
	return exc, ownFrame(frames, libPath)
}

// ownFrame returns the innermost frame not in a library, else the innermost.
func ownFrame(frames []string, lib func(string) bool) string {
	for i := len(frames) - 1; i >= 0; i-- {
		if !lib(frames[i]) {
			return shortPath(frames[i])
		}
	}
	if len(frames) > 0 {
		return shortPath(frames[len(frames)-1])
	}
	return ""
}

func libPath(f string) bool {
	for _, s := range []string{"site-packages/", "dist-packages/", "/lib/python", "<frozen", "/usr/lib/", "/unittest/", "node_modules/", "node:internal", "/usr/local/go/src/", "/go/pkg/mod/", "runtime/", "<string>"} {
		if strings.Contains(f, s) {
			return true
		}
	}
	return false
}

// shortPath keeps the last three components of a frame's path so the
// summary names the file without the machine-specific prefix.
func shortPath(f string) string {
	p, rest := f, ""
	if i := strings.IndexByte(f, ':'); i > 0 {
		p, rest = f[:i], f[i:]
	}
	parts := strings.Split(p, "/")
	if len(parts) > 3 {
		p = strings.Join(parts[len(parts)-3:], "/")
	}
	return p + rest
}

func goPanic(lines []string) string {
	for i, l := range lines {
		var msg string
		switch {
		case strings.HasPrefix(l, "panic: "):
			msg = l
		case strings.HasPrefix(l, "fatal error: "):
			msg = l
		default:
			continue
		}
		// Frames come in pairs: "pkg.Func(...)" then "\tpath.go:12 +0x1f".
		var frames []string
		fn := ""
		for _, n := range lines[i+1:] {
			if m := reGoFrameLoc().FindStringSubmatch(n); m != nil {
				frames = append(frames, m[1]+":"+m[2]+" in "+fn)
				continue
			}
			if strings.HasPrefix(n, "goroutine ") && len(frames) > 0 {
				break
			}
			if n != "" && n[0] != '\t' {
				fn = n
				if j := strings.LastIndexByte(fn, '('); j > 0 {
					fn = fn[:j]
				}
				fn = lastSlash(fn)
			}
		}
		if len(frames) == 0 && !strings.Contains(strings.Join(lines[i:min(len(lines), i+4)], "\n"), "goroutine ") {
			continue
		}
		// Go frames are innermost first, so the first non-library frame
		// is the one to name.
		for _, f := range frames {
			if !libPath(f) && !strings.Contains(f, " in runtime.") && !strings.Contains(f, " in testing.") {
				return joinAt(msg, shortPath(f))
			}
		}
		if len(frames) > 0 {
			return joinAt(msg, shortPath(frames[0]))
		}
		return msg
	}
	return ""
}

func lastSlash(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func rustPanic(lines []string) string {
	for i, l := range lines {
		k := strings.Index(l, "' panicked at ")
		if !strings.HasPrefix(l, "thread '") || k < 0 {
			continue
		}
		rest := l[k+len("' panicked at "):]
		if strings.HasSuffix(rest, ":") && i+1 < len(lines) {
			return "panic: " + strings.TrimSpace(lines[i+1]) + " at " + strings.TrimSuffix(rest, ":")
		}
		return "panic at " + rest
	}
	return ""
}

func javaException(lines []string) string {
	for i, l := range lines {
		if !strings.Contains(l, "Exception") && !strings.Contains(l, "Error") && !strings.Contains(l, "Throwable") {
			continue
		}
		m := reJavaExc().FindStringSubmatch(strings.TrimSpace(l))
		if m == nil || i+1 >= len(lines) || !reJavaFrame().MatchString(lines[i+1]) {
			continue
		}
		exc := lastDot(m[1])
		if m[2] != "" {
			exc += ": " + m[2]
		}
		var own string
		for _, n := range lines[i+1:] {
			fm := reJavaFrame().FindStringSubmatch(n)
			if fm == nil {
				break
			}
			if own == "" && !javaLib(fm[1]) {
				own = fm[2] + " in " + javaMethod(fm[1])
			}
		}
		if own == "" {
			if fm := reJavaFrame().FindStringSubmatch(lines[i+1]); fm != nil {
				own = fm[2] + " in " + javaMethod(fm[1])
			}
		}
		s := joinAt(exc, own)
		// A root cause further down says more than the wrapper.
		for _, n := range lines[i+1:] {
			if strings.HasPrefix(n, "Caused by: ") {
				if cm := reJavaExc().FindStringSubmatch(n); cm != nil {
					s += "; caused by " + lastDot(cm[1])
					if cm[2] != "" {
						s += ": " + cm[2]
					}
				}
			}
		}
		return s
	}
	return ""
}

func javaLib(method string) bool {
	for _, p := range []string{"java.", "javax.", "jdk.", "sun.", "com.sun.", "org.junit.", "junit.", "org.apache.maven.", "org.gradle.", "kotlin.", "scala.", "org.springframework.", "org.opentest4j."} {
		if strings.HasPrefix(method, p) {
			return true
		}
	}
	return false
}

// javaMethod shortens "com.acme.Foo.bar" to "Foo.bar".
func javaMethod(m string) string {
	parts := strings.Split(m, ".")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, ".")
}

func jsError(lines []string) string {
	for i, l := range lines {
		if !strings.Contains(l, "Error") && !strings.Contains(l, "Exception") {
			continue
		}
		t := strings.TrimSpace(l)
		m := reJSExc().FindStringSubmatch(t)
		if m == nil {
			continue
		}
		var own, first string
		for _, n := range lines[i+1:] {
			fm := reJSFrame().FindStringSubmatch(n)
			if fm == nil {
				break
			}
			loc := fm[2] + ":" + fm[3]
			if fm[1] != "" {
				loc += " in " + fm[1]
			}
			if first == "" {
				first = loc
			}
			if own == "" && !libPath(fm[2]) && !strings.HasPrefix(fm[2], "node:") && !strings.HasPrefix(fm[2], "internal/") {
				own = loc
			}
		}
		if first == "" {
			continue
		}
		if own == "" {
			own = first
		}
		return joinAt(t, shortPath(own))
	}
	return ""
}
