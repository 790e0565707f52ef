/**
 * The program a local sandbox's command server runs (`perl -e`), inside the sandbox's bubblewrap. Perl, not
 * node: it starts in ~20 ms of host CPU instead of ~80 and holds ~7 MB of the sandbox's memory instead of
 * ~41 (a fork per command costs the same from either), and `/usr/bin/perl` is there whether or not the
 * worker's node lives under /usr. Only perl-base modules (Config, Fcntl): every Debian or Ubuntu has them.
 * It has the sandbox's rights and no more; the worker reads what it says as it reads any sandbox output
 * (see command-server.ts).
 *
 * In (stdin): frames of a 4-byte big-endian length and a body: type 1 (run) `C N N C N/a* N/a* N/a*` and
 * then `N/a*` fields to the end — id, output cap per stream, whether stdin is given, command, cwd, stdin bytes,
 * then the environment as name/value pairs — or type 2 (kill) `C N` — id.
 * Out (stdout): frames of a 4-byte length, a type byte (1 stdout, 2 stderr, 3 exit), a 4-byte id and
 * the bytes; an exit's bytes are JSON `{code, signal, truncated}` or `{spawnError}`; type 4 (ready) first.
 *
 * Each command is a process group of its own, killed whole when its shell exits. When no command is
 * running any more, every other process of the sandbox is killed (`kill(-1)` spares only this server
 * and bubblewrap's init) and /tmp and /dev/shm are emptied: what a command leaves behind does not outlive it.
 */
export const COMMAND_SERVER_PROGRAM = String.raw`use strict;
use Config;
use Fcntl qw(F_GETFL F_SETFL O_NONBLOCK);
my @signame = split ' ', $Config{sig_name};
my (%cmds, %idOf);
my $inbuf = '';
$SIG{PIPE} = 'IGNORE';
pipe(my $sigr, my $sigw) or die "pipe: $!";
sub nonblock { my $fh = shift; fcntl($fh, F_SETFL, fcntl($fh, F_GETFL, 0) | O_NONBLOCK) }
nonblock($sigr);
nonblock($sigw);
$SIG{CHLD} = sub { syswrite($sigw, "c") };
sub writeall {
  my ($fh, $data) = @_;
  my $off = 0;
  while ($off < length $data) {
    my $n = syswrite($fh, $data, length($data) - $off, $off);
    if (!defined $n) { next if $!{EINTR}; return 0 }
    $off += $n;
  }
  return 1;
}
sub send_frame {
  my ($type, $id, $bytes) = @_;
  writeall(\*STDOUT, pack("NCN", length($bytes) + 5, $type, $id) . $bytes) or exit 0;
}
sub json_text {
  my $s = shift;
  $s =~ s/(["\\])/\\$1/g;
  $s =~ s/([\x00-\x1f])/sprintf("\\u%04x", ord $1)/ge;
  return qq("$s");
}
sub spawn_error { my ($id, $why) = @_; send_frame(3, $id, '{"spawnError":' . json_text($why) . '}') }
sub rm_tree {
  my $path = shift;
  if (-l $path || !-d _) { unlink $path; return }
  chmod 0700, $path;
  if (opendir(my $dh, $path)) {
    my @names = grep { $_ ne '.' && $_ ne '..' } readdir $dh;
    closedir $dh;
    rm_tree("$path/$_") for @names;
  }
  rmdir $path;
}
sub clear {
  my $dir = shift;
  opendir(my $dh, $dir) or return;
  my @names = grep { $_ ne '.' && $_ ne '..' } readdir $dh;
  closedir $dh;
  rm_tree("$dir/$_") for @names;
}
sub sweep {
  return if grep { !$_->{exited} } values %cmds;
  kill 'KILL', -1;
  clear('/tmp');
  clear('/dev/shm');
}
sub run {
  my ($id, $max, $hasIn, $cmd, $cwd, $stdin, @env) = @_;
  return spawn_error($id, 'the command, its directory or its environment holds a NUL byte') if grep { index($_, "\0") >= 0 } $cmd, $cwd, @env;
  my ($or, $ow, $er, $ew, $ir, $iw, $xr, $xw);
  pipe($or, $ow) && pipe($er, $ew) && pipe($xr, $xw) && (!$hasIn || pipe($ir, $iw)) or return spawn_error($id, "pipe: $!");
  my $pid = fork();
  return spawn_error($id, "fork: $!") unless defined $pid;
  if ($pid == 0) {
    $SIG{CHLD} = 'DEFAULT';
    $SIG{PIPE} = 'DEFAULT';
    close $xr;
    setpgrp(0, 0);
    my $ok = ($hasIn ? open(STDIN, '<&', $ir) : open(STDIN, '<', '/dev/null')) && open(STDOUT, '>&', $ow) && open(STDERR, '>&', $ew);
    if (!$ok) { syswrite($xw, "cannot set up its input and output: $!"); exit 127 }
    if (!chdir $cwd) { syswrite($xw, "$cwd: $!"); exit 127 }
    %ENV = @env;
    exec { '/bin/sh' } '/bin/sh', '-c', $cmd;
    syswrite($xw, "/bin/sh: $!");
    exit 127;
  }
  close $ow;
  close $ew;
  close $xw;
  close $ir if $hasIn;
  my $why = '';
  for (;;) {
    my $n = sysread($xr, my $chunk, 512);
    if (!defined $n) { next if $!{EINTR}; last }
    last if $n == 0;
    $why .= $chunk;
  }
  close $xr;
  if ($why ne '') {
    waitpid($pid, 0);
    return spawn_error($id, $why);
  }
  my $c = { id => $id, pid => $pid, out => $or, err => $er, left => [$max, $max], truncated => 0, exited => 0 };
  if ($hasIn) {
    nonblock($iw);
    $c->{in} = $iw;
    $c->{inbuf} = $stdin;
  }
  $cmds{$id} = $c;
  $idOf{$pid} = $id;
}
sub forward {
  my ($c, $type, $chunk) = @_;
  my $room = $c->{left}[$type - 1];
  $c->{truncated} = 1 if length($chunk) > $room;
  return if $room <= 0;
  $chunk = substr($chunk, 0, $room) if length($chunk) > $room;
  $c->{left}[$type - 1] -= length $chunk;
  send_frame($type, $c->{id}, $chunk);
}
sub reap {
  while ((my $pid = waitpid(-1, 1)) > 0) {
    my $status = $?;
    my $id = delete $idOf{$pid};
    next unless defined $id;
    my $c = $cmds{$id};
    $c->{exited} = 1;
    $c->{status} = $status;
    if ($c->{in}) { close $c->{in}; delete $c->{in} }
    kill 'KILL', -$pid;
    sweep();
  }
}
sub settle {
  for my $c (values %cmds) {
    next unless $c->{exited} && !$c->{out} && !$c->{err};
    delete $cmds{$c->{id}};
    my $sig = $c->{status} & 127;
    my $exit = $sig ? '{"code":null,"signal":' . json_text('SIG' . ($signame[$sig] // $sig)) : '{"code":' . ($c->{status} >> 8) . ',"signal":null';
    send_frame(3, $c->{id}, $exit . ',"truncated":' . ($c->{truncated} ? 'true' : 'false') . '}');
  }
}
sub request {
  my $body = shift;
  my ($t, $id) = unpack('C N', $body);
  if ($t == 1) {
    my (undef, undef, $max, $hasIn, $cmd, $cwd, $stdin, $rest) = unpack('C N N C N/a* N/a* N/a* a*', $body);
    my @env;
    while (length $rest >= 4) {
      (my $field, $rest) = unpack('N/a* a*', $rest);
      push @env, $field;
    }
    run($id, $max, $hasIn, $cmd, $cwd, $stdin, @env);
  } elsif ($t == 2) {
    my $c = $cmds{$id};
    kill 'KILL', -$c->{pid} if $c && !$c->{exited};
  }
}
send_frame(4, 0, '');
for (;;) {
  my ($rbits, $wbits) = ('', '');
  vec($rbits, fileno(STDIN), 1) = 1;
  vec($rbits, fileno($sigr), 1) = 1;
  for my $c (values %cmds) {
    vec($rbits, fileno($c->{$_}), 1) = 1 for grep { $c->{$_} } 'out', 'err';
    vec($wbits, fileno($c->{in}), 1) = 1 if $c->{in};
  }
  my $n = select(my $rout = $rbits, my $wout = $wbits, undef, undef);
  if ($n < 0) { next if $!{EINTR}; die "select: $!" }
  sysread($sigr, my $drained, 512) if vec($rout, fileno($sigr), 1);
  reap();
  for my $c (values %cmds) {
    for my $type (1, 2) {
      my $key = $type == 1 ? 'out' : 'err';
      my $fh = $c->{$key} or next;
      next unless vec($rout, fileno($fh), 1);
      my $got = sysread($fh, my $chunk, 65536);
      next if !defined $got && $!{EINTR};
      if (!$got) { close $fh; delete $c->{$key}; next }
      forward($c, $type, $chunk);
    }
    if ($c->{in} && vec($wout, fileno($c->{in}), 1)) {
      my $wrote = syswrite($c->{in}, $c->{inbuf});
      if (defined $wrote) { substr($c->{inbuf}, 0, $wrote) = '' }
      elsif (!$!{EAGAIN} && !$!{EINTR}) { $c->{inbuf} = '' }
      if ($c->{inbuf} eq '') { close $c->{in}; delete $c->{in} }
    }
  }
  if (vec($rout, fileno(STDIN), 1)) {
    my $got = sysread(STDIN, $inbuf, 65536, length $inbuf);
    exit 0 if defined $got ? $got == 0 : !$!{EINTR};
    while (length($inbuf) >= 4) {
      my $len = unpack('N', $inbuf);
      last if length($inbuf) < 4 + $len;
      my $body = substr($inbuf, 4, $len);
      substr($inbuf, 0, 4 + $len) = '';
      request($body);
    }
  }
  settle();
}
`;
