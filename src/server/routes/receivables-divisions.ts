import { defineRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { ImportResult } from '../../shared/schemas/receivables-common';
import { CountryCodes, DivisionImport } from '../../shared/schemas/receivables-divisions';

export const importDivision = defineRoute({
  method: 'post',
  path: '/api/imports/division',
  nullMeansAbsent: true,
  operationId: 'importDivision',
  tags: ['Divisions'],
  summary: 'Create and update a division',
  description:
    'An existing code is updated. An unknown parent_code creates the division without a parent; a parent that would make a loop is refused. deleted: true is refused (412) while an invoice or a child division refers to the division.',
  body: DivisionImport,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Created or updated', schema: ref(ImportResult) }, 412: { description: 'A rule failed', schema: ref(ErrorBody) } },
  async handler({ engine, body }) {
    return { status: 201, body: await engine.receivables.importDivision(body) };
  },
});

export const countryCodes = defineRoute({
  method: 'get',
  path: '/api/reference_data/v1/country_codes',
  operationId: 'getCountryCodes',
  tags: ['Reference Data'],
  summary: 'Countries and their provinces (ISO 3166)',
  description: 'Public reference data (no credentials), from the iso-3166 data package: the codes country and province fields are validated against.',
  auth: false,
  responses: { 200: { description: 'Countries and provinces', schema: ref(CountryCodes) } },
  handler({ engine }) {
    return { body: engine.receivables.countryCodes(), headers: { 'Cache-Control': 'public, max-age=86400' } };
  },
});

export const divisionRoutes = [importDivision, countryCodes];
