package redact

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

// Synthetic credentials, assembled at run time so the source holds no
// string a secret scanner would flag.
var (
	awsKey        = "AKIA" + "IOSFODNN7EXAMPLE"
	awsSecret     = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
	gcpKey        = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"
	ghToken       = "ghp_" + strings.Repeat("aB3dE5", 6)
	ghPAT         = "github_pat_" + "11ABCDEFG0" + strings.Repeat("x1Y2z3", 8)
	glToken       = "glpat-" + "Ab3De5Gh7Jk9Mn1Pq3St"
	slackToken    = "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOp"
	slackHook     = "https://hooks.slack.com/services/" + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
	stripeKey     = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
	openaiKey     = "sk-proj-" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Ab3De5Gh"
	anthropicKey  = "sk-ant-" + "api03-Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9-AAAA"
	jwt           = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ" + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	azureConn     = "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + strings.Repeat("Zm9vYmFy", 11) + "==;EndpointSuffix=core.windows.net"
	azureSecret   = "abc8Q~" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Ab3De"
	pemKey        = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Ga\nQyuvBjM2GaMIIEpAIBAAKCAQEA3Tz2mr7SZiAMf\n-----END RSA PRIVATE KEY-----"
	awsRealSecret = "kq3Xv9Rt/2bLmN8" + "pQw7Zs+Yd4HjF6uGcA1eB0oT"
	awsSession    = "FwoGZXIvYXdzEBYaDHq" + "Lk2m9Pz8Rv7Nx3Tw+5sYb1Jc4Ud6Eh0Fg2Ak8Wl"
	whsec         = "whsec_" + "Mk4Tq9Zr2Wx7Yb3Nc6Vd8Pe1"
	npmToken      = "npm_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tV9wX1yZ3b5D"
	hfToken       = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"
	sgKey         = "SG." + "aB3dE5fG7hJ9kL1mN3pQ5r" + "." + "sT7vW9xY1zA3bC5dE7fG9hJ1kL3mN5pQ7rS9tV1wX3y"
	pypiToken     = "pypi-" + "AgEIcHlwaS5vcmcCJDk4ZjE3YjYtNGQ2Ny00ZDBiLWI2ZjQtYmQ2ZTJkZjQ3YWUz"
	doToken       = "dop_v1_" + strings.Repeat("a1b2c3d4", 8)
	shopToken     = "shpat_" + strings.Repeat("f0e1d2c3", 4)
	dbPassword    = "Xk9mP2vLq8"
)

func TestRedact(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"aws key in env dump", "HOME=/root\nAWS_ACCESS_KEY_ID=" + awsKey + "\nPATH=/bin", "HOME=/root\nAWS_ACCESS_KEY_ID=[REDACTED:aws_access_key]\nPATH=/bin"},
		{"aws credentials file", "[default]\naws_access_key_id = " + awsKey + "\naws_secret_access_key = " + awsRealSecret + "\naws_session_token = " + awsSession + "\n",
			"[default]\naws_access_key_id = [REDACTED:aws_access_key]\naws_secret_access_key = [REDACTED:aws_secret_key]\naws_session_token = [REDACTED:aws_session_token]\n"},
		{"aws documentation example stays", "aws_secret_access_key = " + awsSecret, ""},
		{"aws secret in ini quotes", "aws_secret_access_key = \"" + awsRealSecret + "\"", "aws_secret_access_key = \"[REDACTED:aws_secret_key]\""},
		{"aws secret env", "AWS_SECRET_ACCESS_KEY=" + awsRealSecret + "\n", "AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]\n"},
		{"stripe webhook secret", "STRIPE_WEBHOOK_SECRET=" + whsec, "STRIPE_WEBHOOK_SECRET=[REDACTED:stripe_key]"},
		{"npm token in npmrc", "//registry.npmjs.org/:_authToken=" + npmToken + "\n", "//registry.npmjs.org/:_authToken=[REDACTED:npm_token]\n"},
		{"hugging face token", "huggingface-cli login --token " + hfToken, "huggingface-cli login --token [REDACTED:huggingface_token]"},
		{"sendgrid key", "sg = SendGridAPIClient('" + sgKey + "')", "sg = SendGridAPIClient('[REDACTED:sendgrid_key]')"},
		{"pypi token", "password = " + pypiToken, "password = [REDACTED:pypi_token]"},
		{"digitalocean token", "doctl auth init -t " + doToken, "doctl auth init -t [REDACTED:digitalocean_token]"},
		{"shopify token", `{"X-Shopify-Access-Token": "` + shopToken + `"}`, `{"X-Shopify-Access-Token": "[REDACTED:shopify_token]"}`},
		{"redis url with empty user", "REDIS_URL=redis://:" + dbPassword + "@cache.internal:6379/0", "REDIS_URL=redis://:[REDACTED:url_password]@cache.internal:6379/0"},
		{"basic auth header", "curl -H 'Authorization: Basic YWRtaW46WGs5bVAydkxxOA==' https://api", "curl -H 'Authorization: Basic [REDACTED:basic_auth]' https://api"},
		{"basic auth placeholder stays", "Authorization: Basic dXNlcjpwYXNz", ""},
		{"docker config auth", `{"auths": {"ghcr.io": {"auth": "Ym90OlhrOW1QMnZMcTg="}}}`, `{"auths": {"ghcr.io": {"auth": "[REDACTED:basic_auth]"}}}`},
		{"docker config auth escaped", `"{\"auths\":{\"x\":{\"auth\":\"Ym90OlhrOW1QMnZMcTg=\"}}}"`, `"{\"auths\":{\"x\":{\"auth\":\"[REDACTED:basic_auth]\"}}}"`},
		{"curl -u", "curl -u admin:" + dbPassword + " https://ci.internal/api", "curl -u admin:[REDACTED:basic_auth] https://ci.internal/api"},
		{"curl --user quoted", "curl -s --user 'deploy:" + dbPassword + "' -X POST x", "curl -s --user 'deploy:[REDACTED:basic_auth]' -X POST x"},
		{"yaml unquoted password", "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: " + dbPassword + "\n",
			"services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: [REDACTED:password]\n"},
		{"k8s secret data", "apiVersion: v1\ndata:\n  password: WGs5bVAydkxxOA==\n  username: YWRtaW4=\nkind: Secret\nmetadata:\n  name: db\n",
			"apiVersion: v1\ndata:\n  password: [REDACTED:k8s_secret]\n  username: YWRtaW4=\nkind: Secret\nmetadata:\n  name: db\n"},
		{"k8s secret stringData", "kind: Secret\nstringData:\n  api-token: " + dbPassword + "q\n---\nkind: ConfigMap\ndata:\n  level: debug2x9Q\n",
			"kind: Secret\nstringData:\n  api-token: [REDACTED:k8s_secret]\n---\nkind: ConfigMap\ndata:\n  level: debug2x9Q\n"},
		{"gcp api key in url", "GET https://maps.googleapis.com/api?key=" + gcpKey + "&q=x", "GET https://maps.googleapis.com/api?key=[REDACTED:gcp_api_key]&q=x"},
		{"github token in json", `{"token": "` + ghToken + `"}`, `{"token": "[REDACTED:github_token]"}`},
		{"github pat in git url", "remote: https://x-access-token:" + ghPAT + "@github.com/o/r.git", "remote: https://x-access-token:[REDACTED:github_token]@github.com/o/r.git"},
		{"gitlab token in log", "2026-01-01 INFO using " + glToken + " for api", "2026-01-01 INFO using [REDACTED:gitlab_token] for api"},
		{"slack token", "export SLACK_BOT=" + slackToken, "export SLACK_BOT=[REDACTED:slack_token]"},
		{"slack webhook", "curl -X POST " + slackHook + " -d x", "curl -X POST https://[REDACTED:slack_webhook] -d x"},
		{"stripe key", "stripe.api_key = '" + stripeKey + "'", "stripe.api_key = '[REDACTED:stripe_key]'"},
		{"openai key", "OPENAI_API_KEY=" + openaiKey, "OPENAI_API_KEY=[REDACTED:openai_key]"},
		{"anthropic key in json", `{"headers":{"x-api-key":"` + anthropicKey + `"}}`, `{"headers":{"x-api-key":"[REDACTED:anthropic_key]"}}`},
		{"jwt in log", "auth ok jwt=" + jwt + " user=1", "auth ok jwt=[REDACTED:jwt] user=1"},
		{"bearer header", "curl -H 'Authorization: Bearer " + "abcdef0123456789abcdef0123" + "' x", "curl -H 'Authorization: Bearer [REDACTED:bearer_token]' x"},
		{"azure connection string", azureConn, "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED:azure_key];EndpointSuffix=core.windows.net"},
		{"azure client secret", "client secret: " + azureSecret + " end", "client secret: [REDACTED:azure_key] end"},
		{"private key block", "key:\n" + pemKey + "\ndone", "key:\n[REDACTED:private_key]\ndone"},
		{"private key json escaped", `{"private_key": "` + strings.ReplaceAll(pemKey, "\n", `\n`) + `\n", "x": 1}`, `{"private_key": "[REDACTED:private_key]\n", "x": 1}`},
		{"private key truncated", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9u", "[REDACTED:private_key]"},
		{"url password", "DATABASE_URL=postgres://app:" + dbPassword + "@db.internal:5432/app", "DATABASE_URL=postgres://app:[REDACTED:url_password]@db.internal:5432/app"},
		{"password env", "DB_PASSWORD=hunter22 ./run", "DB_PASSWORD=[REDACTED:password] ./run"},
		{"pass component env", "PGPASS=x\nDB_PASS=Zz9!abc\n", "PGPASS=x\nDB_PASS=[REDACTED:password]\n"},
		{"password json", `{"user":"bob","password":"` + dbPassword + `"}`, `{"user":"bob","password":"[REDACTED:password]"}`},
		{"password escaped json", `"{\"password\": \"hunter22\"}"`, `"{\"password\": \"[REDACTED:password]\"}"`},
		{"camel case api key", `config = {apiKey: "abc123def456"}`, `config = {apiKey: "[REDACTED:api_key]"}`},
		{"yaml quoted secret", "client_secret: 'q8Vd9fZ2'", "client_secret: '[REDACTED:secret]'"},
		{"api key header", "curl -H 'x-api-key: 7c8f95931e2234ddc750d5a9' -H \"X-Auth-Token: " + dbPassword + "\" https://api", "curl -H 'x-api-key: [REDACTED:api_key]' -H \"X-Auth-Token: [REDACTED:token]\" https://api"},
		{"mysql pwd env", "MYSQL_PWD=" + dbPassword + " mysql -u app", "MYSQL_PWD=[REDACTED:password] mysql -u app"},
		{"pwd is a path", "OLDPWD=/home/u/src PWD=/home/u echo $PWD", ""},
		{"cli flag", "mysql --password=Tr0ub4dor -h db", "mysql --password=[REDACTED:password] -h db"},
		{"query string token", "GET /cb?access_token=q8Vd9fZ2k&state=x", "GET /cb?access_token=[REDACTED:token]&state=x"},
		{"go short assignment", `token := "tk_9f8e7d6c5b"`, `token := "[REDACTED:token]"`},

		// Near-misses: must stay as they are.
		{"git hash", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: x", ""},
		{"uuid", "session 7acd37a8-2745-4b58-a8a9-46164b22ad9e started", ""},
		{"base64 data", "data: SGVsbG8gV29ybGQhIFRoaXMgaXMgb3JkaW5hcnkgYmFzZTY0IGRhdGEu", ""},
		{"token count", "token_count=5 tokens=1200 max_tokens: 4096", ""},
		{"usage json", `{"input_tokens": 12, "output_tokens": 40, "cache_read_input_tokens": 0}`, ""},
		{"password field identifier", "password_field = forms.CharField(widget=forms.PasswordInput)", ""},
		{"password from function", "password = getpass.getpass()", ""},
		{"type annotation", "def login(user: str, password: str) -> Token:", ""},
		{"comparison", `if token == "": return`, ""},
		{"variable reference", `TOKEN="${GITHUB_TOKEN}" PASSWORD=$DB_PASS`, ""},
		{"template", `password: "{{ .Values.password }}"`, ""},
		{"token type", `{"token_type": "Bearer", "expires_in": 3600}`, ""},
		{"url without password", "see https://user@example.com/path and http://localhost:8080/x", ""},
		{"sk word", "pip install scikit-learn; task-runner-for-something-long", ""},
		{"sk kebab", "sk-this-is-just-a-long-kebab-name", ""},
		{"tokenizer", `"tokenizer": "cl100k_base"`, ""},
		{"compass bypass", "compass=north bypass=yes", ""},
		{"empty password", `{"password": ""}`, ""},
		{"bearer variable", "Authorization: Bearer $TOKEN", ""},
		{"begin public key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqh\n-----END PUBLIC KEY-----", ""},
		{"ssh url", "git clone ssh://git@github.com:22/o/r.git", ""},
		{"redacted already", "DB_PASSWORD=[REDACTED:password]", ""},

		// Placeholders and test values: they stay, and stay distinct.
		{"url validator test cases", "'http://user:pass:word@example.com',\n'http://user:pass%40@example.com',\n", ""},
		{"django dummy secret key", "SECRET_KEY = 'dummy'\nSECRET_KEY='secret'\n", ""},
		{"test password", "User.objects.create_user(username='testuser', password='password')", ""},
		{"wrong password", "authenticate(username='u', password='wrongpassword')", ""},
		{"postgres default url", "DATABASE_URL=postgres://postgres:postgres@localhost:5432/test", ""},
		{"short token", "token=abc123", ""},
		{"sequential token", "access_token=abcd1234", ""},
		{"words as password", `{"password": "correct horse"}`, ""},
		{"placeholder words", `clientSecret = "your-app-secret"; accessToken = 'insert-token-here'; password: "changeme123"`, ""},
		{"leetspeak placeholder", "DB_PASSWORD=s3cr3t\nDB_PASS=p@ssw0rd\n", ""},
		{"credentials path", "GOOGLE_APPLICATION_CREDENTIALS=/srv/keys/sa.json\nSPEECH_CREDENTIALS = 'acme-prod-4821-0f3e9a7b2c1d.json'\n", ""},
		{"ini prose", "password = the one you chose at install\n", ""},
		{"object literal in code", "const client = new Client({\n  apiKey: config.apiKey,\n  token: someVar2,\n});\n    token: tokenValue1;\nsecret_key = settings.SECRET_KEY2\n", ""},
		{"yaml type", "token: str\npassword: Optional[str] = None\n", ""},
		{"docker run -u", "docker run -u 1000:1000 img; curl -u user:pass http://x", ""},
		{"k8s secret placeholder", "kind: Secret\ndata:\n  config: cGFzc3dvcmQ=\n", ""},
		{"not a k8s secret", "kind: SecretStore\ndata:\n  config: WGs5bVAydkxxOA==\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.in
			}
			got, n, kinds := Redact([]byte(c.in))
			if string(got) != want {
				t.Fatalf("Redact(%q)\n got %q\nwant %q", c.in, got, want)
			}
			if (n > 0) != (want != c.in) {
				t.Errorf("n = %d, kinds %v", n, kinds)
			}
			total := 0
			for _, v := range kinds {
				total += v
			}
			if total != n {
				t.Errorf("kinds %v sum to %d, n = %d", kinds, total, n)
			}
			again, n2, _ := Redact(got)
			if n2 != 0 || !bytes.Equal(again, got) {
				t.Errorf("not idempotent: second pass %q (%d)", again, n2)
			}
		})
	}
}

func TestRedactNoMatchReturnsInput(t *testing.T) {
	in := []byte("plain output\nwith nothing secret\n")
	out, n, kinds := Redact(in)
	if n != 0 || kinds != nil || &out[0] != &in[0] {
		t.Fatalf("want the input slice back, got n=%d kinds=%v", n, kinds)
	}
}

func TestString(t *testing.T) {
	s, n, _ := String("x " + ghToken)
	if n != 1 || s != "x [REDACTED:github_token]" {
		t.Fatalf("String = %q, %d", s, n)
	}
}

// TestCorporaUntouched checks for false positives on real transcripts,
// which a scan found free of API keys and private keys: no token-shaped
// detector may fire. The transcripts do hold hard-coded test credentials in
// code (SECRET_KEY = '...', password='testpass', http://user:p%40ss@...),
// which the assignment and URL rules rightly replace; each hit is logged so
// a reviewer can judge it.
func TestCorporaUntouched(t *testing.T) {
	dir := testutil.Corpora(t)
	generic := map[string]bool{"password": true, "secret": true, "token": true, "api_key": true, "credential": true, "authorization": true, "url_password": true}
	total, files := 0, 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "README.md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		out, n, kinds := Redact(b)
		if n > 0 {
			t.Logf("%s: %d %v", p, n, kinds)
			logHits(t, b, out)
		}
		for k := range kinds {
			if !generic[k] {
				t.Errorf("%s: token detector %s fired on credential-free data", p, k)
			}
		}
		total += n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files, %d redactions", files, total)
}

func logHits(t *testing.T, in, out []byte) {
	for off := 0; ; {
		i := bytes.Index(out[off:], []byte(placeholderPrefix))
		if i < 0 {
			return
		}
		i += off
		lo := max(0, i-60)
		hi := min(len(out), i+60)
		t.Logf("   ...%q...", out[lo:hi])
		off = i + 1
	}
}

func FuzzRedact(f *testing.F) {
	f.Add([]byte("AWS_ACCESS_KEY_ID=" + awsKey))
	f.Add([]byte(`{"password": "hunter22", "token": "` + ghToken + `"}`))
	f.Add([]byte("postgres://u:p4ss@h/db " + jwt))
	f.Add([]byte(pemKey))
	f.Add([]byte("token_count=5 password_field=x"))
	f.Add([]byte("\\\"secret\\\": \\\"abc\\\""))
	f.Add([]byte(azureConn + " " + azureSecret + " Bearer " + openaiKey))
	f.Fuzz(func(t *testing.T, b []byte) {
		orig := bytes.Clone(b)
		out, n, _ := Redact(b)
		if !bytes.Equal(b, orig) {
			t.Fatal("input modified")
		}
		if n == 0 && !bytes.Equal(out, b) {
			t.Fatal("changed output without a redaction")
		}
		if Contains(out) {
			t.Fatalf("output still holds a credential: %q", out)
		}
		again, n2, _ := Redact(out)
		if n2 != 0 || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
		// A known secret planted after any input is gone afterwards.
		planted := append(append(bytes.Clone(b), " "...), ghToken...)
		if p, _, _ := Redact(planted); bytes.HasSuffix(p, []byte(ghToken)) {
			t.Fatalf("planted token survived: %q", p)
		}
	})
}

func benchInput(b *testing.B) []byte {
	dir := testutil.CorporaDir()
	if dir != "" {
		data, err := os.ReadFile(filepath.Join(dir, "claude-code", "projects", "-src-deep-manifest", "a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl"))
		if err == nil {
			return data
		}
	}
	var buf bytes.Buffer
	for buf.Len() < 1<<20 {
		buf.WriteString("--- FAIL: TestParse (0.00s)\n    parse_test.go:42: got {\"input_tokens\": 12, \"key\": \"value\"} want 9fceb02d0ae598e95dc970b74767f19372d61af8\n")
	}
	return buf.Bytes()
}

func BenchmarkRedact(b *testing.B) {
	in := benchInput(b)
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for b.Loop() {
		Redact(in)
	}
}

func BenchmarkRedactPlainText(b *testing.B) {
	var buf bytes.Buffer
	for buf.Len() < 1<<20 {
		buf.WriteString("ok  \tgithub.com/x/y/z\t0.012s\ncompiling main.go:12:3 undefined: foo\n")
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Redact(in)
	}
}

// BenchmarkRedactCorpora redacts every transcript of the shared corpora
// (the agent formats, 17 MB), file by file: the speed docs/redaction.md
// reports, in MB/s of input.
func BenchmarkRedactCorpora(b *testing.B) {
	dir := testutil.CorporaDir()
	if dir == "" {
		b.Skip("corpora not found")
	}
	var files [][]byte
	size := 0
	for _, sub := range []string{"claude-code", "codex", "gemini", "mini-swe-agent", "swe-agent"} {
		_ = filepath.WalkDir(filepath.Join(dir, sub), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, "README.md") {
				return err
			}
			data, err := os.ReadFile(p)
			if err == nil {
				files = append(files, data)
				size += len(data)
			}
			return err
		})
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, f := range files {
			Redact(f)
		}
	}
}
