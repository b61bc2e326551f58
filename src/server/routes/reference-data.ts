import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route';
import { notFound } from '../../engine/errors';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { BinParams, BinRecord, ResponseCode } from '../../shared/schemas/reference-data';

export const listResponseCodes = defineRoute({
  method: 'get',
  path: '/api/reference_data/v1/response_codes',
  operationId: 'listResponseCodes',
  tags: ['Reference Data'],
  summary: 'Every response code a gateway transaction can carry, with its description',
  description: 'Public reference data (no credentials). `response_code` on a transaction response is one of these codes; 100 is an approval. `code` is an integer, as the spec has it (the reference\'s ResponseCode schema says string, its example 100).',
  auth: false,
  responses: { 200: { description: 'Response codes', schema: Type.Array(ref(ResponseCode)) } },
  handler({ engine }) {
    return { body: engine.gateway.responseCodes().map((c) => ({ code: c.code, description: c.description })) };
  },
});

const disabled = { 412: { description: 'Reference data is not enabled for this account', schema: ref(ErrorBody) } };

export const listBins = defineRoute({
  method: 'get',
  path: '/api/reference_data/v1/bin',
  operationId: 'listBins',
  tags: ['Reference Data'],
  summary: 'The bank identification number (BIN) table',
  description: 'The issuer records of the BIN table shipped with Laneway (resources/bin-table.json), which also detects card brands.',
  responses: { 200: { description: 'BIN records', schema: Type.Array(ref(BinRecord)) }, ...disabled },
  handler({ engine }) {
    engine.account.require('reference_data');
    return { body: engine.gateway.bins() };
  },
});

export const viewBin = defineRoute({
  method: 'get',
  path: '/api/reference_data/v1/bin/:bin',
  operationId: 'viewBin',
  tags: ['Reference Data'],
  summary: 'The BIN record for 6 to 8 digits',
  description: 'The issuer record whose BIN prefixes the digits; else a record with only the network brand when the digits fall in a brand range; else 404.',
  params: BinParams,
  responses: { 200: { description: 'BIN record', schema: ref(BinRecord) }, 400: { description: 'Not 6 to 8 digits', schema: ref(ErrorBody) }, 404: { description: 'No issuer or network range matches', schema: ref(ErrorBody) }, ...disabled },
  handler({ engine, params }) {
    engine.account.require('reference_data');
    const record = engine.gateway.bin(params.bin);
    if (!record) throw notFound('bin_not_found', `No BIN record or card network matches ${params.bin}`);
    return { body: record };
  },
});

export const referenceDataRoutes: AnyRoute[] = [listResponseCodes, listBins, viewBin];
