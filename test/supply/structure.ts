/**
 * Our own structural checks of SPDX 2.3 and SARIF 2.1.0 documents: the fields each specification
 * requires, with their fixed values and forms, so the tests check our output even where the
 * official JSON schemas are not at hand. Each check returns the list of what is wrong, empty when
 * nothing is. Clause numbers are the SPDX 2.3 specification's and OASIS SARIF 2.1.0's.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** SPDX 2.3 clause 7.10's algorithms. */
const SPDX_ALGORITHMS = new Set([
  'SHA1',
  'SHA224',
  'SHA256',
  'SHA384',
  'SHA512',
  'SHA3-256',
  'SHA3-384',
  'SHA3-512',
  'BLAKE2b-256',
  'BLAKE2b-384',
  'BLAKE2b-512',
  'BLAKE3',
  'MD2',
  'MD4',
  'MD5',
  'MD6',
  'ADLER32',
]);
/** SPDX 2.3 clause 7.21's categories, as the JSON form spells them. */
const SPDX_REF_CATEGORIES = new Set(['SECURITY', 'PACKAGE-MANAGER', 'PACKAGE_MANAGER', 'PERSISTENT-ID', 'PERSISTENT_ID', 'OTHER']);
const SPDX_ID = /^SPDXRef-[A-Za-z0-9.-]+$/;

export function spdxStructureErrors(doc: unknown): string[] {
  const errors: string[] = [];
  const need = (ok: boolean, what: string) => void (ok || errors.push(what));
  if (!isObject(doc)) return ['not a JSON object'];
  need(doc.spdxVersion === 'SPDX-2.3', 'spdxVersion must be "SPDX-2.3" (6.1)');
  need(doc.dataLicense === 'CC0-1.0', 'dataLicense must be "CC0-1.0" (6.2)');
  need(doc.SPDXID === 'SPDXRef-DOCUMENT', 'SPDXID must be "SPDXRef-DOCUMENT" (6.3)');
  need(isString(doc.name), 'name is required (6.4)');
  need(
    isString(doc.documentNamespace) && /^[a-z][a-z0-9+.-]*:\/\/[^#\s]+$/i.test(doc.documentNamespace),
    'documentNamespace must be an absolute URI without "#" (6.5)',
  );
  const info = doc.creationInfo;
  if (!isObject(info)) errors.push('creationInfo is required (6.8, 6.9)');
  else {
    need(
      Array.isArray(info.creators) &&
        info.creators.length > 0 &&
        info.creators.every((c) => typeof c === 'string' && /^(Person|Organization|Tool): \S/.test(c)),
      'creationInfo.creators: one or more "Person: ", "Organization: " or "Tool: " entries (6.8)',
    );
    need(
      typeof info.created === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(info.created),
      'creationInfo.created must be YYYY-MM-DDThh:mm:ssZ (6.9)',
    );
  }
  const ids = new Set<string>(['SPDXRef-DOCUMENT']);
  const packages = doc.packages ?? [];
  if (!Array.isArray(packages)) errors.push('packages must be an array');
  else
    packages.forEach((p: unknown, i) => {
      const at = `packages[${i}]`;
      if (!isObject(p)) return void errors.push(`${at} is not an object`);
      need(isString(p.name), `${at}.name is required (7.1)`);
      need(typeof p.SPDXID === 'string' && SPDX_ID.test(p.SPDXID), `${at}.SPDXID must be SPDXRef- and letters, digits, "." or "-" (7.2)`);
      need(typeof p.SPDXID !== 'string' || !ids.has(p.SPDXID), `${at}.SPDXID is not unique`);
      if (typeof p.SPDXID === 'string') ids.add(p.SPDXID);
      need(isString(p.downloadLocation), `${at}.downloadLocation is required (7.7)`);
      need(p.filesAnalyzed === undefined || typeof p.filesAnalyzed === 'boolean', `${at}.filesAnalyzed must be a boolean (7.8)`);
      for (const field of ['licenseConcluded', 'licenseDeclared', 'copyrightText', 'versionInfo'])
        need(p[field] === undefined || isString(p[field]), `${at}.${field} must be a string`);
      for (const [j, c] of ((p.checksums ?? []) as unknown[]).entries())
        need(
          isObject(c) &&
            SPDX_ALGORITHMS.has(c.algorithm as string) &&
            typeof c.checksumValue === 'string' &&
            /^[0-9a-f]+$/.test(c.checksumValue),
          `${at}.checksums[${j}]: a known algorithm and a lower-case hex value (7.10)`,
        );
      for (const [j, r] of ((p.externalRefs ?? []) as unknown[]).entries())
        need(
          isObject(r) &&
            SPDX_REF_CATEGORIES.has(r.referenceCategory as string) &&
            isString(r.referenceType) &&
            isString(r.referenceLocator),
          `${at}.externalRefs[${j}]: category, type and locator (7.21)`,
        );
    });
  const element = (id: unknown) =>
    typeof id === 'string' && (ids.has(id) || id === 'NONE' || id === 'NOASSERTION' || id.startsWith('DocumentRef-'));
  for (const [i, r] of ((doc.relationships ?? []) as unknown[]).entries())
    need(
      isObject(r) &&
        element(r.spdxElementId) &&
        element(r.relatedSpdxElement) &&
        typeof r.relationshipType === 'string' &&
        /^[A-Z_]+$/.test(r.relationshipType),
      `relationships[${i}]: known elements and an upper-case type (11.1)`,
    );
  return errors;
}

const SARIF_LEVELS = new Set(['none', 'note', 'warning', 'error']);
const SARIF_KINDS = new Set(['notApplicable', 'pass', 'fail', 'review', 'open', 'informational']);

export function sarifStructureErrors(log: unknown): string[] {
  const errors: string[] = [];
  const need = (ok: boolean, what: string) => void (ok || errors.push(what));
  if (!isObject(log)) return ['not a JSON object'];
  need(log.version === '2.1.0', 'version must be "2.1.0" (3.13.2)');
  need(log.$schema === undefined || isString(log.$schema), '$schema must be a URI (3.13.3)');
  if (!Array.isArray(log.runs)) return [...errors, 'runs is required (3.13.4)'];
  log.runs.forEach((run: unknown, i) => {
    const at = `runs[${i}]`;
    const driver = isObject(run) && isObject(run.tool) ? run.tool.driver : undefined;
    if (!isObject(run) || !isObject(driver)) return void errors.push(`${at}.tool.driver is required (3.14.6, 3.18.2)`);
    need(isString(driver.name), `${at}.tool.driver.name is required (3.19.8)`);
    const rules = (driver.rules ?? []) as unknown[];
    rules.forEach((rule, j) => {
      need(isObject(rule) && isString(rule.id), `${at}.tool.driver.rules[${j}].id is required (3.49.3)`);
      const level = isObject(rule) && isObject(rule.defaultConfiguration) ? rule.defaultConfiguration.level : undefined;
      need(level === undefined || SARIF_LEVELS.has(level as string), `${at}.tool.driver.rules[${j}].defaultConfiguration.level (3.50.3)`);
    });
    ((run.results ?? []) as unknown[]).forEach((result, j) => {
      const rat = `${at}.results[${j}]`;
      if (!isObject(result)) return void errors.push(`${rat} is not an object`);
      need(
        isObject(result.message) && (isString(result.message.text) || isString(result.message.id)),
        `${rat}.message needs text or id (3.27.11, 3.11.7)`,
      );
      need(result.level === undefined || SARIF_LEVELS.has(result.level as string), `${rat}.level (3.27.10)`);
      need(result.kind === undefined || SARIF_KINDS.has(result.kind as string), `${rat}.kind (3.27.9)`);
      need(
        result.ruleIndex === undefined ||
          (Number.isInteger(result.ruleIndex) && (result.ruleIndex as number) >= 0 && (result.ruleIndex as number) < rules.length),
        `${rat}.ruleIndex must index tool.driver.rules (3.27.6)`,
      );
      ((result.locations ?? []) as unknown[]).forEach((location, k) => {
        const physical = isObject(location) ? location.physicalLocation : undefined;
        if (physical === undefined) return;
        const region = isObject(physical) ? physical.region : undefined;
        need(
          isObject(physical) && isObject(physical.artifactLocation) && isString(physical.artifactLocation.uri),
          `${rat}.locations[${k}].physicalLocation.artifactLocation.uri (3.4.3)`,
        );
        need(
          region === undefined ||
            (isObject(region) &&
              (region.startLine === undefined || (Number.isInteger(region.startLine) && (region.startLine as number) >= 1))),
          `${rat}.locations[${k}].physicalLocation.region.startLine >= 1 (3.30.5)`,
        );
      });
    });
  });
  return errors;
}
