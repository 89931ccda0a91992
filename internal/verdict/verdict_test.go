//go:build unix

package verdict

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roleEnv tells this test binary, run again as a child, what to do.
const roleEnv = "VERDICT_TEST_ROLE"

// TestMain runs the child roles: "sender" opens the channel and sends
// records, "garbage" writes a datagram that is no record, "grandchild"
// checks that it did not inherit the channel.
func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "":
		os.Exit(m.Run())
	case "sender":
		os.Exit(sender())
	case "garbage":
		f := os.NewFile(FD, "channel")
		f.Write([]byte("--- PASS: TestX"))
		os.Exit(0)
	case "grandchild":
		if isSocket(FD) {
			os.Exit(3)
		}
		os.Exit(0)
	}
}

// sender is the child that opens the channel as a suite's test binary
// does, checks what Open promises, and sends a begin, a test and an end.
func sender() int {
	s := Open()
	if s == nil {
		return 10
	}
	if _, ok := os.LookupEnv(FDEnv); ok {
		return 11 // Open clears the variable
	}
	if runtime.GOOS == "linux" {
		// A socket cannot be opened by path: code in the process that
		// does not hold the descriptor cannot write to it.
		for _, p := range []string{"/proc/self/fd/3", "/dev/fd/3"} {
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.Close()
				return 12
			}
		}
	}
	// A process a test starts does not inherit the channel.
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), roleEnv+"=grandchild")
	if err := child.Run(); err != nil {
		return 13
	}
	for _, r := range []Record{{Kind: Begin, Package: "p"}, {Kind: Test, Package: "p", Test: "TestA", Status: Pass}, {Kind: End, Package: "p", Tests: 1}} {
		if s.Send(r) != nil {
			return 14
		}
	}
	return 0
}

// runChild runs this binary as role with the channel ch as descriptor 3.
func runChild(t *testing.T, ch *Channel, role string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"="+role, ch.Env())
	cmd.ExtraFiles = []*os.File{ch.File()}
	require.NoError(t, cmd.Start())
	ch.Listen()
	return cmd
}

// TestChannelCarriesAChildsRecords: what a child process sends arrives,
// in order, with its PID; the child finds the channel through the
// environment, clears it, cannot reach it by path and does not pass it on.
func TestChannelCarriesAChildsRecords(t *testing.T) {
	ch, err := New()
	require.NoError(t, err)
	cmd := runChild(t, ch, "sender")
	err = cmd.Wait()
	records, bad := ch.Close()
	require.NoError(t, err, "the sender child failed (exit codes: 10 no channel, 11 variable kept, 12 opened by path, 13 inherited, 14 send)")
	assert.Empty(t, bad)
	require.Len(t, records, 3)
	for _, r := range records {
		assert.Equal(t, cmd.Process.Pid, r.PID)
	}
	assert.Equal(t, []Kind{Begin, Test, End}, []Kind{records[0].Kind, records[1].Kind, records[2].Kind})
	assert.Equal(t, "TestA", records[1].Test)
	assert.Equal(t, Pass, records[1].Status)
	assert.Equal(t, 1, records[2].Tests)
}

// TestChannelReportsWhatIsNoRecord: a datagram that is not a record (what
// a lab that reached the descriptor might write) is reported, not dropped.
func TestChannelReportsWhatIsNoRecord(t *testing.T) {
	ch, err := New()
	require.NoError(t, err)
	cmd := runChild(t, ch, "garbage")
	require.NoError(t, cmd.Wait())
	records, bad := ch.Close()
	assert.Empty(t, records)
	require.Len(t, bad, 1)
}

// TestOpenNeedsASocket: without the variable, or with one naming what is
// no socket, a test binary has no channel and sends nothing.
func TestOpenNeedsASocket(t *testing.T) {
	t.Setenv(FDEnv, "")
	os.Unsetenv(FDEnv)
	assert.Nil(t, Open())
	assert.NoError(t, (*Sender)(nil).Send(Record{Kind: Begin}), "a nil Sender sends nothing")

	f, err := os.CreateTemp(t.TempDir(), "not-a-socket")
	require.NoError(t, err)
	defer f.Close()
	t.Setenv(FDEnv, strconv.Itoa(int(f.Fd())))
	assert.Nil(t, Open(), "a regular file is no channel")
	t.Setenv(FDEnv, "three")
	assert.Nil(t, Open())
}

// TestRecordsRoundTrip: a record encodes to one datagram of at most
// MaxRecord bytes and decodes back; what is not a record is an error.
func TestRecordsRoundTrip(t *testing.T) {
	r := Record{Kind: End, Package: "github.com/flk-byo/course/stages/01-windows", PID: 42, Code: 1, Tests: 20}
	data, err := Encode(r)
	require.NoError(t, err)
	got, err := Decode(data)
	require.NoError(t, err)
	assert.Equal(t, r, got)

	_, err = Encode(Record{Kind: Test, Test: strings.Repeat("x", MaxRecord)})
	assert.ErrorContains(t, err, "over the 2048")
	_, err = Decode([]byte(`{"kind":"pass"}`))
	assert.ErrorContains(t, err, "unknown kind")
	_, err = Decode([]byte("--- PASS: TestA"))
	assert.Error(t, err)
}
