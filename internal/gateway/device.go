package gateway

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
)

// Identity is our own Ed25519 device key (never the Node CLI's: 2026.9 keeps
// that in SQLite under its own locks).
type Identity struct {
	DeviceID  string // lowercase hex SHA-256 of the raw public key
	PublicKey ed25519.PublicKey
	key       ed25519.PrivateKey
}

type identityFile struct {
	Version     int    `json:"version"`
	DeviceID    string `json:"deviceId"`
	PublicKey   string `json:"publicKey"`  // base64url, raw 32 bytes
	PrivateSeed string `json:"privateKey"` // base64url, the 32-byte seed
	CreatedAtMs int64  `json:"createdAtMs"`
}

// NewIdentity derives an identity from a 32-byte Ed25519 seed.
func NewIdentity(seed []byte) (*Identity, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("device key: seed must be %d bytes", ed25519.SeedSize)
	}
	key := ed25519.NewKeyFromSeed(seed)
	pub := key.Public().(ed25519.PublicKey)
	sum := sha256.Sum256(pub)
	return &Identity{DeviceID: hex.EncodeToString(sum[:]), PublicKey: pub, key: key}, nil
}

// LoadOrCreateIdentity reads the device key at path, creating it (mode 0600,
// directory 0700) when missing. A file readable by others is refused.
func LoadOrCreateIdentity(path string, now time.Time) (*Identity, error) {
	data, err := fsutil.ReadFileRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		seed := make([]byte, ed25519.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, err
		}
		id, _ := NewIdentity(seed)
		doc, _ := json.MarshalIndent(identityFile{
			Version: 1, DeviceID: id.DeviceID,
			PublicKey:   base64.RawURLEncoding.EncodeToString(id.PublicKey),
			PrivateSeed: base64.RawURLEncoding.EncodeToString(seed),
			CreatedAtMs: now.UnixMilli(),
		}, "", "  ")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, apperr.Statef("cannot create %s: %v", filepath.Dir(path), err)
		}
		if err := fsutil.WriteFileAtomic(path, append(doc, '\n'), 0o600); err != nil {
			return nil, apperr.Statef("cannot write device key %s: %v", path, err)
		}
		return id, nil
	}
	if err != nil {
		return nil, apperr.Statef("cannot read device key %s: %v", path, err)
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, apperr.Statef("device key %s is accessible by others (mode %04o): chmod 600 it", path, st.Mode().Perm())
	}
	var f identityFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, apperr.Statef("device key %s is corrupt: %v", path, err)
	}
	seed, err := base64.RawURLEncoding.DecodeString(f.PrivateSeed)
	if err != nil {
		return nil, apperr.Statef("device key %s is corrupt: %v", path, err)
	}
	id, err := NewIdentity(seed)
	if err != nil {
		return nil, apperr.Statef("device key %s is corrupt: %v", path, err)
	}
	if f.DeviceID != "" && f.DeviceID != id.DeviceID {
		return nil, apperr.Statef("device key %s is corrupt: deviceId does not match the key", path)
	}
	return id, nil
}

// SignInput is what a device signature covers.
type SignInput struct {
	ClientID, ClientMode, Role string
	Scopes                     []string
	SignedAt                   time.Time
	Token                      string // the auth token sent (shared or device token), or ""
	Nonce                      string // the challenge nonce
}

// Payload is the "v2" string both versions verify:
// v2|deviceId|clientId|clientMode|role|scopes|signedAtMs|token|nonce.
func (id *Identity) Payload(in SignInput) string {
	return strings.Join([]string{
		"v2", id.DeviceID, in.ClientID, in.ClientMode, in.Role, strings.Join(in.Scopes, ","),
		strconv.FormatInt(in.SignedAt.UnixMilli(), 10), in.Token, in.Nonce,
	}, "|")
}

// Sign returns the connect request's device block.
func (id *Identity) Sign(in SignInput) map[string]any {
	sig := ed25519.Sign(id.key, []byte(id.Payload(in)))
	return map[string]any{
		"id":        id.DeviceID,
		"publicKey": base64.RawURLEncoding.EncodeToString(id.PublicKey),
		"signature": base64.RawURLEncoding.EncodeToString(sig),
		"signedAt":  in.SignedAt.UnixMilli(),
		"nonce":     in.Nonce,
	}
}

// DeviceToken is a token a gateway issued to our device after pairing.
type DeviceToken struct {
	Token       string   `json:"token"`
	Role        string   `json:"role,omitempty"`
	Scopes      []string `json:"scopes,omitempty"`
	Protocol    int      `json:"protocol"` // 3: send as auth.token; 4: auth.deviceToken
	UpdatedAtMs int64    `json:"updatedAtMs,omitempty"`
}

// TokenStore keeps device tokens per gateway, in one 0600 JSON file.
type TokenStore struct {
	Path string
	mu   sync.Mutex
}

type tokenFile struct {
	Version int                    `json:"version"`
	Tokens  map[string]DeviceToken `json:"tokens"`
}

// TokenKey is a gateway's key in the store: its origin (scheme, host, port)
// and the role.
func TokenKey(rawURL, role string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return role + " " + rawURL
	}
	host := strings.ToLower(u.Host)
	return role + " " + u.Scheme + "://" + host
}

func (s *TokenStore) load() (tokenFile, error) {
	f := tokenFile{Version: 1, Tokens: map[string]DeviceToken{}}
	data, err := fsutil.ReadFileRegular(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("%s is corrupt: %v", s.Path, err)
	}
	if f.Tokens == nil {
		f.Tokens = map[string]DeviceToken{}
	}
	return f, nil
}

// Get returns the token kept for key.
func (s *TokenStore) Get(key string) (DeviceToken, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return DeviceToken{}, false
	}
	t, ok := f.Tokens[key]
	return t, ok && t.Token != ""
}

// Put keeps t for key (atomic write, mode 0600).
func (s *TokenStore) Put(key string, t DeviceToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return err
	}
	if t.UpdatedAtMs == 0 {
		t.UpdatedAtMs = time.Now().UnixMilli()
	}
	f.Tokens[key] = t
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(s.Path, append(data, '\n'), 0o600)
}

// UserDir is where our own gateway files live: <user config dir>/sessions.
func UserDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", apperr.Statef("no user config dir: %v", err)
	}
	return filepath.Join(d, "sessions"), nil
}

// IdentityFile and TokensFile are our device files under UserDir.
const (
	IdentityFile = "device.json"
	TokensFile   = "device-tokens.json"
)

// WithDefaultDeviceFiles returns o using our own device key and device
// tokens under UserDir (device.json, device-tokens.json), loaded only when a
// connection needs a device.
func (o Options) WithDefaultDeviceFiles() (Options, error) {
	d, err := UserDir()
	if err != nil {
		return o, err
	}
	if o.Identity == nil && o.IdentityPath == "" {
		o.IdentityPath = filepath.Join(d, IdentityFile)
	}
	if o.Tokens == nil {
		o.Tokens = &TokenStore{Path: filepath.Join(d, TokensFile)}
	}
	return o, nil
}
