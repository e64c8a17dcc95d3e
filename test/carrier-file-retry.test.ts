import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { CarrierCatalog, DEFAULT_CARRIERS } from '../src/modules/carriers/carriers.catalog.js'
import type { CarrierConfig } from '../src/modules/carriers/carriers.schema.js'
import { enqueueJob } from '../src/jobs/outbox.js'
import { SEND_FILE_JOB } from '../src/modules/carrier-delivery/index.js'
import { installThroughApi, settle, startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { expectValid834 } from './helpers/edi-834-assertions.js'
import { startSftpServer, type TestSftpServer } from './helpers/sftp-server.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * An 834 file whose transfer breaks mid-way is retried by its job and reaches the carrier exactly
 * once: through a real SFTP server (loopback) that drops the connection after some bytes.
 */
let bed: CarrierTestBed
let t: TestApp
let workers: Workers
let server: TestSftpServer
let operator: Credential

const PASSWORD_ENV = 'TEST_CARRIER_SFTP_PASSWORD'

beforeAll(async () => {
  server = await startSftpServer()
  const sftpCarrier: CarrierConfig = {
    name: 'test_sftp',
    display_name: 'Test carrier over SFTP',
    distribution_format: 'edi',
    member_management: true,
    requires_pcp_for_hmo: false,
    sandbox: false,
    edi_transport: { type: 'sftp', host: server.host, port: server.port, username: server.username, password_env: PASSWORD_ENV, remote_directory: '.', host_key_sha256: server.hostKeySha256 },
  }
  bed = await startCarrierTestBed({ carriers: new CarrierCatalog([...DEFAULT_CARRIERS, sftpCarrier]), settings: { secrets: { [PASSWORD_ENV]: server.password } } })
  ;({ t, workers } = bed)
  operator = await t.newOperator()
})
afterAll(async () => {
  await bed?.close()
  await server?.close()
})

/** The send job is rescheduled with backoff after a failure: make it due now. */
const makeSendJobsDue = () => t.db.updateTable('jobs').set({ run_at: new Date() }).where('name', '=', SEND_FILE_JOB.name).where('status', '=', 'pending').execute()

describe('an 834 file whose transfer breaks', () => {
  it('when the connection drops mid-transfer, then the job retries and the carrier receives the file exactly once', async () => {
    const partner = await t.newPartner()
    const install = await installThroughApi(t, partner, 'test_sftp', 4)
    server.faults.dropAfterWriteBytes = 600
    for (const status of ['in_progress', 'submitted']) {
      expect((await call(t.app, operator, 'POST', `/work_orders/${install.workOrderId}/transitions`, { status, message: status })).statusCode).toBe(200)
    }

    await settle(workers)
    const [failedOnce] = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    expect(failedOnce).toMatchObject({ kind: 'full', status: 'pending', attempts: 1 })
    expect(failedOnce.last_error).toEqual(expect.any(String))
    expect(failedOnce.last_error).not.toContain(server.password)
    expect(server.renames).toEqual([])

    await makeSendJobsDue()
    await settle(workers)
    const [delivered] = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    expect(delivered).toMatchObject({ status: 'sent', attempts: 2, last_error: null })
    expect(server.renames.filter((r) => r.to.endsWith(delivered.file_name))).toHaveLength(1)
    const content = (await call(t.app, operator, 'GET', `/file_deliveries/${delivered.id}/content`)).body
    expectValid834(content)
    expect(readFileSync(join(server.root, delivered.file_name), 'utf8')).toBe(content)

    // A send whose success was lost (the job runs again): the carrier's copy is recognised, none added.
    await t.db.updateTable('file_deliveries').set({ status: 'pending' }).where('id', '=', delivered.id).execute()
    await enqueueJob(t.db, SEND_FILE_JOB, { file_delivery_id: delivered.id })
    await settle(workers)
    expect(server.renames.filter((r) => r.to.endsWith(delivered.file_name))).toHaveLength(1)
    const [again] = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    expect(again.status).toBe('sent')
  })

  it('when the carrier keeps failing past the last attempt, then the delivery is failed with the reason', async () => {
    const partner = await t.newPartner()
    const install = await installThroughApi(t, partner, 'test_sftp', 1)
    for (const status of ['in_progress', 'submitted']) {
      await call(t.app, operator, 'POST', `/work_orders/${install.workOrderId}/transitions`, { status, message: status })
    }
    for (let attempt = 0; attempt < SEND_FILE_JOB.maxAttempts; attempt++) {
      server.faults.dropAfterWriteBytes = 10
      await makeSendJobsDue()
      await settle(workers, 2)
    }
    const [failed] = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    expect(failed).toMatchObject({ status: 'failed', attempts: SEND_FILE_JOB.maxAttempts })
    expect(failed.last_error).toContain(server.host)
  })
})
