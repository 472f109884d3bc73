package ssh

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// keys returns the keys to offer, in the order OpenSSH offers them: the
// agent's (when Agent is set) and then the identity file's. With an agent,
// a missing identity file is not an error (the default ~/.ssh/id_ed25519
// need not exist); done releases the agent connection once the handshake
// is over.
func (c Config) keys() (signers []xssh.Signer, done func(), err error) {
	done = func() {}
	if c.Signer != nil {
		return []xssh.Signer{c.Signer}, done, nil
	}
	if c.Agent {
		sock := c.AgentSocket
		if sock == "" {
			sock = os.Getenv("SSH_AUTH_SOCK")
		}
		if sock == "" {
			return nil, done, errors.New("agent = true but SSH_AUTH_SOCK is not set (is ssh-agent running?)")
		}
		conn, err := net.Dial("unix", sock)
		if err != nil {
			return nil, done, fmt.Errorf("ssh-agent at %s: %w", sock, err)
		}
		done = func() { _ = conn.Close() }
		as, err := agent.NewClient(conn).Signers()
		if err != nil {
			done()
			return nil, func() {}, fmt.Errorf("ssh-agent at %s: %w", sock, err)
		}
		signers = append(signers, as...)
	}
	if c.PrivateKeyFile != "" || !c.Agent {
		s, err := c.signer()
		switch {
		case err == nil:
			signers = append(signers, s)
		case c.Agent && errors.Is(err, fs.ErrNotExist):
		default:
			done()
			return nil, func() {}, err
		}
	}
	if len(signers) == 0 {
		done()
		return nil, func() {}, errors.New("no key to offer: the agent holds none and no private_key_file is readable")
	}
	return signers, done, nil
}
