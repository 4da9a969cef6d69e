package redact

// The scan finds every anchor in one pass over the input. Searching for
// each of the ~40 anchors with bytes.Index would be ~40 passes (fast ones,
// but together slower than one table-driven pass), and most input holds no
// anchor at all.

type detector uint8

const (
	detToken detector = iota
	detPrivateKey
	detJWT
	detAzureSecret
	detURL
	detStem
	detSendGrid
	detBasic
	detDocker
	detCurlUser
	detK8s
)

type anchor struct {
	s        string
	det      detector
	rule     *tokenRule
	caseless bool // compare ASCII letters without case (secret-naming stems)
}

var (
	byFirst [256][]anchor
	// pairs holds the first two bytes of every anchor (in each case for
	// caseless ones) as a 64K-bit set: the scan's fast path.
	pairs [1 << 16 / 64]uint64
)

func pairKey(c0, c1 byte) int { return int(c0)<<8 | int(c1) }

// stems are the words a secret-naming key contains; "Key" (case-sensitive)
// catches camelCase keys (apiKey, accessKey).
var stems = []string{"pass", "pwd", "secret", "token", "_key", "-key", "apikey", "credential", "authorization"}

func addAnchor(a anchor) {
	variants := func(c byte) []byte {
		if a.caseless && c >= 'a' && c <= 'z' {
			return []byte{c, c - 'a' + 'A'}
		}
		return []byte{c}
	}
	for _, c0 := range variants(a.s[0]) {
		byFirst[c0] = append(byFirst[c0], a)
		for _, c1 := range variants(a.s[1]) {
			k := pairKey(c0, c1)
			pairs[k/64] |= 1 << (k % 64)
		}
	}
}

func init() {
	for i := range tokenRules {
		r := &tokenRules[i]
		for _, p := range r.prefixes {
			addAnchor(anchor{s: p, det: detToken, rule: r})
		}
	}
	addAnchor(anchor{s: string(beginMark), det: detPrivateKey})
	addAnchor(anchor{s: "eyJ", det: detJWT})
	addAnchor(anchor{s: "Q~", det: detAzureSecret})
	addAnchor(anchor{s: "://", det: detURL})
	for _, st := range stems {
		addAnchor(anchor{s: st, det: detStem, caseless: true})
	}
	addAnchor(anchor{s: "Key", det: detStem})
	addAnchor(anchor{s: "SG.", det: detSendGrid})
	addAnchor(anchor{s: "Basic ", det: detBasic})
	addAnchor(anchor{s: "basic ", det: detBasic})
	addAnchor(anchor{s: `"auth`, det: detDocker})
	addAnchor(anchor{s: "-u ", det: detCurlUser})
	addAnchor(anchor{s: "--user", det: detCurlUser})
	addAnchor(anchor{s: "kind: Secret", det: detK8s})
}

func (a *anchor) at(b []byte, i int) bool {
	if len(b)-i < len(a.s) {
		return false
	}
	if !a.caseless {
		return string(b[i:i+len(a.s)]) == a.s
	}
	for k := 0; k < len(a.s); k++ {
		c := b[i+k]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != a.s[k] {
			return false
		}
	}
	return true
}

// scan runs every detector at every anchor; matches may overlap.
func scan(b []byte) []match {
	var ms []match
	seen := -1
	for i := 0; i+1 < len(b); i++ {
		if k := pairKey(b[i], b[i+1]); pairs[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for k := range byFirst[b[i]] {
			a := &byFirst[b[i]][k]
			if !a.at(b, i) {
				continue
			}
			var m match
			ok := false
			switch a.det {
			case detToken:
				m, ok = a.rule.at(b, i, a.s)
			case detPrivateKey:
				m, ok = privateKeyAt(b, i)
			case detJWT:
				m, ok = jwtAt(b, i)
			case detAzureSecret:
				m, ok = azureSecretAt(b, i)
			case detURL:
				m, ok = urlPasswordAt(b, i)
			case detStem:
				m, ok = assignmentAt(b, i, len(a.s), &seen)
			case detSendGrid:
				m, ok = sendgridAt(b, i)
			case detBasic:
				m, ok = basicAuthAt(b, i)
			case detDocker:
				m, ok = dockerAuthAt(b, i)
			case detCurlUser:
				m, ok = curlUserAt(b, i, len(a.s))
			case detK8s:
				k8sSecretAt(b, i, &ms)
			}
			if ok {
				ms = append(ms, m)
			}
		}
	}
	return ms
}
