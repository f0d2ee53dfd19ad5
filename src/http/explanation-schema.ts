/**
 * The JSON schema of a failed platform's `explanation` (src/explanation-data.ts), for the OpenAPI
 * document and the tests that check responses against it.
 */
const strings = { type: 'array', items: { type: 'string' } } as const;

export const EXPLANATION_SCHEMA = {
  title: 'Explanation',
  description:
    'Only on a failed platform, after `error`: why no solution exists, as data (null when the platform failed for another reason, such as a time limit or an unreachable channel). `tree` is the structured tree the text is rendered from.',
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['spec', 'requested', 'conflicts', 'candidates', 'virtual_packages', 'excluded', 'complete', 'tree'],
  properties: {
    spec: { type: 'string', description: 'The requested spec that cannot be installed together with the ones before it.' },
    requested: { ...strings, description: 'The requested specs the explanation involves, the blocked one first.' },
    conflicts: {
      type: 'array',
      description: 'Each requirement that cannot hold: which candidates, which specs, who holds the other side.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'subject', 'specs', 'against', 'detail'],
        properties: {
          kind: { type: 'string', enum: ['missing', 'conflicts', 'constrained', 'constrains', 'unusable', 'combination'] },
          subject: { type: 'string', description: 'The candidates ruled out, e.g. `python 3.9.0 .. 3.9.13`.' },
          specs: strings,
          against: { type: ['string', 'null'], description: '`requested <spec>` or `<name> <versions>`.' },
          detail: { type: ['string', 'null'] },
        },
      },
    },
    candidates: {
      type: 'array',
      description: 'For each requirement explained, the candidate versions considered (runs as `first .. last`).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['specs', 'name', 'versions'],
        properties: { specs: strings, name: { type: 'string' }, versions: strings },
      },
    },
    virtual_packages: {
      type: 'array',
      description: 'Requirements on virtual packages (`__cuda`, `__glibc`, ...) the target system does not satisfy.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'spec', 'available', 'note'],
        properties: { name: { type: 'string' }, spec: { type: 'string' }, available: strings, note: { type: ['string', 'null'] } },
      },
    },
    excluded: {
      type: 'array',
      description: 'Matches hidden by channel rules or exclude-newer.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'versions', 'cause', 'reason'],
        properties: {
          name: { type: 'string' },
          versions: strings,
          cause: { type: 'string', enum: ['channel-priority', 'channel', 'exclude-newer', 'other'] },
          reason: { type: 'string' },
        },
      },
    },
    complete: { type: 'boolean', description: 'False when the proof was cut short and the explanation may be partial.' },
    tree: {
      type: ['object', 'null'],
      description: 'The structured explanation tree (see the library type `Explanation`); null when larger than 256 KiB.',
    },
  },
} as const;
