package libvirt

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt/socket/dialers"
)

// TestDialerFor pins which go-libvirt dialer, with which settings, each
// URI form gives, and the errors for what lab refuses. The URI forms and
// parameters are libvirt's (https://libvirt.org/uri.html, "Remote URIs").
func TestDialerFor(t *testing.T) {
	// go-libvirt's SSH dialer defaults known_hosts from $HOME.
	t.Setenv("HOME", "/home/tester")
	for _, tc := range []struct{ uri, want string }{
		{"qemu:///system", "*dialers.Local{timeout:7000000000 socket:/var/run/libvirt/libvirt-sock}"},
		{"qemu:///system?socket=/run/x.sock", "*dialers.Local{timeout:7000000000 socket:/run/x.sock}"},
		{"qemu+unix:///system?no_verify=0", "*dialers.Local{timeout:7000000000 socket:/var/run/libvirt/libvirt-sock}"},
		{"qemu+tcp://h:1509/system", "*dialers.Remote{timeout:7000000000 host:h port:1509}"},
		{"qemu+tcp://h/system", "*dialers.Remote{timeout:7000000000 host:h port:16509}"},
		{"qemu://h/system", "*dialers.TLS{timeout:20000000000 host:h port:16514 insecureSkipVerify:false certSearchPaths:[{/etc/pki/libvirt/private/ /etc/pki/libvirt/}] caSearchPaths:[/etc/pki/CA/]}"},
		{"qemu+tls://h:16515/system?pkipath=/p&no_verify=1", "*dialers.TLS{timeout:20000000000 host:h port:16515 insecureSkipVerify:true certSearchPaths:[{/p /p}] caSearchPaths:[/p]}"},
		{"qemu+libssh2://u:pw@h:2222/system?socket=/s&keyfile=/k&known_hosts=/kh&known_hosts_verify=auto&sshauth=privkey,Agent",
			"*dialers.SSH{dialTimeout:20000000000 hostname:h port:2222 username:u password:pw insecureIgnoreHostKey:false acceptUnknownHostKey:true keyFile:/k knownHostsFile:/kh authMethods:2 remoteSocket:/s}"},
		{"qemu+libssh://u@h/system?known_hosts_verify=ignore&sshauth=password,keyboard-interactive",
			"*dialers.SSH{dialTimeout:20000000000 hostname:h port:22 username:u password: insecureIgnoreHostKey:true acceptUnknownHostKey:false keyFile: knownHostsFile:/home/tester/.config/libvirt/known_hosts authMethods:1 remoteSocket:/var/run/libvirt/libvirt-sock}"},
		{"qemu+libssh://u@h/system?known_hosts_verify=normal",
			"*dialers.SSH{dialTimeout:20000000000 hostname:h port:22 username:u password: insecureIgnoreHostKey:false acceptUnknownHostKey:false keyFile: knownHostsFile:/home/tester/.config/libvirt/known_hosts authMethods:3 remoteSocket:/var/run/libvirt/libvirt-sock}"},
		{"qemu:///system?mode=Direct", "error: libvirt uri: mode=direct is not supported (lab talks to libvirtd)"},
		{"qemu+tls://h/system?no_verify=yes", `error: libvirt uri: no_verify="yes" is not a number`},
		{"qemu+libssh://h/system?no_verify=1", "error: libvirt uri: no_verify does not apply to libssh; use known_hosts_verify=ignore"},
		{"qemu+libssh2://h/system?known_hosts_verify=maybe", `error: libvirt uri: known_hosts_verify="maybe" (normal, auto or ignore)`},
		{"qemu+libssh://h/system?sshauth=agent,gssapi", `error: libvirt uri: sshauth method "gssapi" (agent, privkey, password, keyboard-interactive)`},
		{"qemu+ext:///system", `error: libvirt uri: transport "ext" is not one lab can use (unix, tcp, tls, ssh, libssh)`},
	} {
		u, err := url.Parse(tc.uri)
		if err != nil {
			t.Fatal(err)
		}
		d, err := dialerFor(u, 7*time.Second)
		var got string
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = describeDialer(d)
		}
		if got != tc.want {
			t.Errorf("dialerFor(%s)\n got %s\nwant %s", tc.uri, got, tc.want)
		}
	}
}

// describeDialer prints a go-libvirt dialer's settings (its unexported
// fields, read through reflect), naming the SSH authentication methods.
func describeDialer(d any) string {
	v := reflect.ValueOf(d).Elem()
	var b strings.Builder
	fmt.Fprintf(&b, "%T{", d)
	for i := range v.NumField() {
		if i > 0 {
			b.WriteString(" ")
		}
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && f.Type().Elem() == reflect.TypeOf(dialers.SSHAuthMethods{}) {
			fmt.Fprintf(&b, "%s:%v", v.Type().Field(i).Name, authMethodCount(f))
			continue
		}
		fmt.Fprintf(&b, "%s:%v", v.Type().Field(i).Name, f)
	}
	return b.String() + "}"
}

// authMethodCount counts the authentication methods an *SSHAuthMethods
// will try (go-libvirt keeps them as closures, which cannot be named;
// KeyboardInteractive adds none, socket/dialers/gossh.go).
func authMethodCount(m reflect.Value) string {
	if m.IsNil() {
		return "none"
	}
	return fmt.Sprint(m.Elem().FieldByName("authMethodGenerators").Len())
}
