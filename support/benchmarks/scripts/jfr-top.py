"""Groups a JFR recording's execution samples: buckets by framework layer (inclusive, overlapping), the top
self-time frames and the project's and frameworks' entry points. Usage: python3 jfr-top.py recording.jfr"""
import json, sys, collections, subprocess
jfr = sys.argv[1]
out = subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--stack-depth', '200', '--events', 'jdk.ExecutionSample', jfr], capture_output=True, text=True).stdout
data = json.loads(out)
events = data['recording']['events']
top = collections.Counter(); incl = collections.Counter(); n = 0
buckets = collections.Counter()
rules = [
 ('jwt', ['nimbus', 'CachingJwtDecoder', 'oauth2']),
 ('security filters', ['springframework.security']),
 ('rate limit', ['RateLimits', 'LocalTokenBuckets', 'TokenReservations', 'RateLimiter']),
 ('coalescer/pairs client', ['Coalescer', 'FollowPairsClient']),
 ('lean read handler', ['LeanReadHandler', 'ReadBatchClient', 'BatchPost']),
 ('route filters', ['RoutesConfiguration', 'PathGuard', 'RequestIds', 'FollowTokenGuard']),
 ('json', ['jackson']),
 ('netty io/epoll', ['io.netty.channel.epoll', 'sun.nio', 'io.netty.channel.nio']),
 ('reactor-netty http', ['reactor.netty.http']),
 ('spring web handler', ['org.springframework.web.server', 'org.springframework.web.reactive', 'org.springframework.http.server']),
 ('scg', ['springframework.cloud.gateway']),
 ('observation/metrics', ['micrometer', 'io.opentelemetry']),
 ('logging', ['logback', 'slf4j']),
]
for e in events:
    frames = e['values']['stackTrace']['frames'] if e['values'].get('stackTrace') else []
    thread = e['values'].get('sampledThread', {}).get('javaName', '')
    names = [f['method']['type']['name'] + '.' + f['method']['name'] for f in frames]
    if not names: continue
    n += 1
    top[names[0]] += 1
    seen = set()
    for nm in names:
        if nm not in seen:
            incl[nm] += 1; seen.add(nm)
    joined = ' '.join(names)
    for b, keys in rules:
        if any(k in joined for k in keys):
            buckets[b] += 1
print('samples', n)
print('== buckets (inclusive, overlapping)')
for b, c in buckets.most_common(): print(f'{100*c/n:5.1f}% {b}')
print('== top self')
for m, c in top.most_common(25): print(f'{100*c/n:5.1f}% {m}')
print('== top inclusive (project and framework entry points)')
for m, c in incl.most_common(400):
    if any(k in m for k in ['socialgraph', 'security', 'Coalesc', 'LeanRead', 'HttpWebHandlerAdapter', 'DispatcherHandler', 'reactor.netty.http.server', 'reactor.netty.http.client', 'FilteringWebHandler', 'jackson', 'nimbus']):
        print(f'{100*c/n:5.1f}% {m}')
