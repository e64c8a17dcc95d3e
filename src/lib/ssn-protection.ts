import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Social Security numbers at rest (api-contract.md section 9): sealed with AES-256-GCM under a
 * named key, so keys rotate (the first key seals, every listed key opens), and matched through
 * an HMAC-SHA256 keyed hash under a separate key, so equal numbers can be found without
 * decrypting and a leaked table cannot be brute-forced over the 10^9 possible numbers without
 * the hash key. Only the last four digits are kept in clear, for masking.
 */
export interface SealedSsn {
  /** base64 of IV (12 bytes) || ciphertext || GCM tag (16 bytes). */
  ciphertext: string
  keyId: string
  /** hex HMAC-SHA256 of the nine digits under the hash key. */
  hash: string
  lastFour: string
}

export interface SsnKey {
  id: string
  key: Buffer
}

/** A sealed value is its IV, its encrypted body, then its tag (fileChunks reads a chunk's three apart). */
export const IV_BYTES = 12
export const TAG_BYTES = 16
// Binds the ciphertext to its purpose and format version: a sealed value of another kind
// (or a later format) cannot be passed off as an SSN.
const AAD = Buffer.from('enrollsync:ssn:v1')
const FILE_AAD = Buffer.from('enrollsync:file-chunk:v1')
const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/

export class SsnKeyError extends Error {}

export class SsnProtection {
  private readonly sealingKey: SsnKey
  private readonly keys: ReadonlyMap<string, Buffer>
  private readonly hashKey: Buffer

  constructor(encryptionKeys: readonly SsnKey[], hashKey: Buffer) {
    if (encryptionKeys.length === 0) throw new SsnKeyError('at least one SSN encryption key is required')
    const keys = new Map<string, Buffer>()
    for (const { id, key } of encryptionKeys) {
      if (!KEY_ID_PATTERN.test(id)) throw new SsnKeyError('an SSN encryption key id must be 1 to 64 letters, digits, dots, dashes or underscores')
      if (key.length !== 32) throw new SsnKeyError(`SSN encryption key "${id}" must be 32 bytes (base64 of 32 random bytes)`)
      if (keys.has(id)) throw new SsnKeyError(`SSN encryption key id "${id}" is listed twice`)
      keys.set(id, key)
    }
    if (hashKey.length < 32) throw new SsnKeyError('the SSN hash key must be at least 32 bytes')
    this.sealingKey = encryptionKeys[0]!
    this.keys = keys
    this.hashKey = hashKey
  }

  /** Parses `SSN_ENCRYPTION_KEYS` (`id:base64key,id:base64key`) and `SSN_HASH_KEY` (base64). */
  static fromConfig(encryptionKeys: string, hashKey: string): SsnProtection {
    return new SsnProtection(parseSsnEncryptionKeys(encryptionKeys), decodeBase64Strict(hashKey, 'SSN_HASH_KEY'))
  }

  /** Fresh random keys: the embedded mode's first start, and tools that never read an SSN. */
  static generateKeys(): { encryptionKeys: string; hashKey: string } {
    return { encryptionKeys: `k1:${randomBytes(32).toString('base64')}`, hashKey: randomBytes(32).toString('base64') }
  }

  /** `ssn` must already be validated (nine digits). */
  seal(ssn: string): SealedSsn {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.sealingKey.key, iv)
    cipher.setAAD(AAD)
    const body = Buffer.concat([cipher.update(ssn, 'utf8'), cipher.final()])
    return {
      ciphertext: Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64'),
      keyId: this.sealingKey.id,
      hash: this.hash(ssn),
      lastFour: ssn.slice(-4),
    }
  }

  /** Opens a sealed value; throws if the key id is unknown or the value was tampered with. */
  open(ciphertext: string, keyId: string): string {
    const key = this.keys.get(keyId)
    if (!key) throw new SsnKeyError(`no SSN encryption key has the id "${keyId}"`)
    const raw = Buffer.from(ciphertext, 'base64')
    if (raw.length < IV_BYTES + TAG_BYTES + 1) throw new SsnKeyError('sealed SSN is truncated')
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES))
    decipher.setAAD(AAD)
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8')
  }

  /**
   * Carrier files hold SSNs in clear, so their stored content is sealed the same way, under the
   * same keys (another AAD: a file chunk cannot pass for an SSN, nor the reverse).
   */
  sealBytes(plain: Buffer): { data: Buffer; keyId: string } {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.sealingKey.key, iv)
    cipher.setAAD(FILE_AAD)
    const body = Buffer.concat([cipher.update(plain), cipher.final()])
    return { data: Buffer.concat([iv, body, cipher.getAuthTag()]), keyId: this.sealingKey.id }
  }

  openBytes(sealed: Buffer, keyId: string): Buffer {
    if (sealed.length < IV_BYTES + TAG_BYTES) throw new SsnKeyError('sealed content is truncated')
    const body = sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)
    return Buffer.concat(this.openPieces(sealed.subarray(0, IV_BYTES), [body], sealed.subarray(sealed.length - TAG_BYTES), keyId))
  }

  /**
   * Opens sealed content read in parts: its IV, its body as consecutive pieces, its tag. The same
   * bytes as openBytes on their concatenation, piece by piece, without making that copy (a file
   * chunk is read back in pieces: file-deliveries.repo.ts, fileChunks). Nothing is returned before
   * the tag is checked.
   */
  openPieces(iv: Buffer, body: readonly Buffer[], tag: Buffer, keyId: string): Buffer[] {
    const key = this.keys.get(keyId)
    if (!key) throw new SsnKeyError(`no SSN encryption key has the id "${keyId}"`)
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SsnKeyError('sealed content is truncated')
    const decipher = createDecipheriv('aes-256-gcm', key, iv)
    decipher.setAAD(FILE_AAD)
    decipher.setAuthTag(tag)
    const plain = body.map((piece) => decipher.update(piece))
    // Throws when the tag does not match; GCM, a stream mode, has nothing left to add.
    const rest = decipher.final()
    if (rest.length > 0) plain.push(rest)
    return plain
  }

  /** The keyed hash equal SSNs share: what matching (census, duplicates) compares. */
  hash(ssn: string): string {
    return createHmac('sha256', this.hashKey).update(ssn, 'utf8').digest('hex')
  }

  matches(ssn: string, hash: string): boolean {
    const expected = Buffer.from(this.hash(ssn), 'hex')
    const given = Buffer.from(hash, 'hex')
    return given.length === expected.length && timingSafeEqual(given, expected)
  }

  /** True when the value was sealed with an older key and should be sealed again. */
  needsResealing(keyId: string): boolean {
    return keyId !== this.sealingKey.id
  }
}

/** The masked form every answer carries: the last four digits only. */
export function maskSsn(lastFour: string): string {
  return `***-**-${lastFour}`
}

function decodeBase64Strict(text: string, name: string): Buffer {
  const trimmed = text.trim()
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) throw new SsnKeyError(`${name} must be base64`)
  return Buffer.from(trimmed, trimmed.includes('-') || trimmed.includes('_') ? 'base64url' : 'base64')
}

/** Never repeats a key in its messages: they end up in start-up errors and logs. */
export function parseSsnEncryptionKeys(text: string): SsnKey[] {
  const entries = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')
  if (entries.length === 0) throw new SsnKeyError('SSN_ENCRYPTION_KEYS must list at least one id:base64key')
  return entries.map((entry, index) => {
    const colon = entry.indexOf(':')
    if (colon <= 0) throw new SsnKeyError(`SSN_ENCRYPTION_KEYS entry ${index + 1} must be id:base64key`)
    const id = entry.slice(0, colon)
    return { id, key: decodeBase64Strict(entry.slice(colon + 1), `SSN_ENCRYPTION_KEYS entry ${index + 1}`) }
  })
}
