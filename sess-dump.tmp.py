import json,sys
n=0; a=0
for line in open(sys.argv[1]):
    e=json.loads(line)
    if e.get('type')=='message':
        m=e['message']
        if m['role']=='user': n+=1; print('USER', n, len(json.dumps(m['content'])))
        elif m['role']=='assistant':
            u=m.get('usage',{}); print('  A%d'%a, [c['type'] for c in m['content']][:1], m.get('stopReason'), 'read',u.get('cacheRead'),'write',u.get('cacheWrite')); a+=1
        elif m['role']=='toolResult': print('    R', m['toolCallId'][-12:], len(json.dumps(m['content'])))
    elif e.get('customType')=='context-prune-flush-metrics':
        d=e['data'].get('decision') or {}
        f=d.get('figures') or {}
        print('  METRICS', e['data']['trigger'], e['data']['outcome'], e['data']['capturedBatches'], d.get('basis'), d.get('bound'), 'chains', d.get('chains'), 'rw', f.get('rewriteCost'), (d.get('reason') or '')[:120])
    elif e.get('customType')=='context-prune-frontier':
        print('  FRONTIER', e['data']['lastAttemptedTurnIndex'], e['data']['lastAttemptedToolCallId'][-12:], e['data']['outcome'])
    elif e.get('customType')=='context-prune-chain':
        print('  CHAIN', e['data'].get('blockId'))
    elif e.get('customType')=='context-prune-index':
        print('  INDEX', [c['toolCallId'][-12:] for c in e['data']['toolCalls']])
