/* tslint:disable */
/* eslint-disable */
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import type { TsoaRoute } from '@tsoa/runtime';
import {  fetchMiddlewares, ExpressTemplateService } from '@tsoa/runtime';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { SyncStatusController } from './../controllers/sync-status/sync-status-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { LinkedAccountsController } from './../controllers/linked-accounts/linked-accounts-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { LinkTokenController } from './../controllers/link-token/link-token-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { FieldMappingsController } from './../controllers/field-mappings/field-mappings-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { EventsController } from './../controllers/events/events-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { AccountTokenController } from './../controllers/account-token/account-token-controller';
import { expressAuthentication } from './../authentication';
// @ts-ignore - no great way to install types from subpackage
import type { Request as ExRequest, Response as ExResponse, RequestHandler, Router } from 'express';

const expressAuthenticationRecasted = expressAuthentication as (req: ExRequest, securityName: string, scopes?: string[], res?: ExResponse) => Promise<any>;


// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

const models: TsoaRoute.Models = {
    "ErrorBody": {
        "dataType": "refObject",
        "properties": {
            "detail": {"dataType":"string","required":true},
            "code": {"dataType":"string","required":true},
            "errors": {"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"message":{"dataType":"string","required":true},"field":{"dataType":"string","required":true}}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SyncStatusView": {
        "dataType": "refObject",
        "properties": {
            "model_name": {"dataType":"string","required":true},
            "model_id": {"dataType":"string","required":true},
            "status": {"dataType":"string","required":true},
            "last_sync_start": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "last_sync_finished": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "last_sync_result": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "next_sync_start": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "is_initial_sync": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Paginated_SyncStatusView_": {
        "dataType": "refObject",
        "properties": {
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"SyncStatusView"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Platform": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["hubspot"]},{"dataType":"enum","enums":["zoom"]},{"dataType":"enum","enums":["eventbrite"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LinkedAccountCreated": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "platform": {"ref":"Platform","required":true},
            "integration": {"dataType":"nestedObjectLiteral","nestedProperties":{"slug":{"ref":"Platform","required":true},"name":{"dataType":"string","required":true}},"required":true},
            "category": {"dataType":"enum","enums":["mktg"],"required":true},
            "status": {"dataType":"string","required":true},
            "status_detail": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "end_user_origin_id": {"dataType":"string","required":true},
            "end_user_organization_name": {"dataType":"string","required":true},
            "end_user_email_address": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_account_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_account_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "is_test_account": {"dataType":"boolean","required":true},
            "sync_frequency_seconds": {"dataType":"double","required":true},
            "created_at": {"dataType":"string","required":true},
            "account_token": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Record_string.unknown_": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"any"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LinkedAccountInput": {
        "dataType": "refObject",
        "properties": {
            "platform": {"dataType":"string","required":true},
            "credentials": {"ref":"Record_string.unknown_","required":true},
            "end_user_origin_id": {"dataType":"string","required":true},
            "end_user_organization_name": {"dataType":"string","required":true},
            "end_user_email_address": {"dataType":"string"},
            "sync_frequency_seconds": {"dataType":"double"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LinkedAccountSyncSummary": {
        "dataType": "refObject",
        "properties": {
            "statuses": {"dataType":"array","array":{"dataType":"refObject","ref":"SyncStatusView"},"required":true},
            "last_error": {"dataType":"union","subSchemas":[{"dataType":"nestedObjectLiteral","nestedProperties":{"message":{"dataType":"string","required":true},"at":{"dataType":"string","required":true}}},{"dataType":"enum","enums":[null]}],"required":true},
            "event_count": {"dataType":"union","subSchemas":[{"dataType":"double"},{"dataType":"enum","enums":[null]}],"required":true},
            "contact_count": {"dataType":"union","subSchemas":[{"dataType":"double"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LinkedAccountWithSummary": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "platform": {"ref":"Platform","required":true},
            "integration": {"dataType":"nestedObjectLiteral","nestedProperties":{"slug":{"ref":"Platform","required":true},"name":{"dataType":"string","required":true}},"required":true},
            "category": {"dataType":"enum","enums":["mktg"],"required":true},
            "status": {"dataType":"string","required":true},
            "status_detail": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "end_user_origin_id": {"dataType":"string","required":true},
            "end_user_organization_name": {"dataType":"string","required":true},
            "end_user_email_address": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_account_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_account_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "is_test_account": {"dataType":"boolean","required":true},
            "sync_frequency_seconds": {"dataType":"double","required":true},
            "created_at": {"dataType":"string","required":true},
            "sync_summary": {"ref":"LinkedAccountSyncSummary"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Paginated_LinkedAccountWithSummary_": {
        "dataType": "refObject",
        "properties": {
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"LinkedAccountWithSummary"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SyncRunView": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "run_id": {"dataType":"string","required":true},
            "linked_account_id": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
            "started_at": {"dataType":"string","required":true},
            "finished_at": {"dataType":"string","required":true},
            "result": {"dataType":"string","required":true},
            "error": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "pages_written": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Paginated_SyncRunView_": {
        "dataType": "refObject",
        "properties": {
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"SyncRunView"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LinkTokenCreated": {
        "dataType": "refObject",
        "properties": {
            "link_token": {"dataType":"string","required":true},
            "integration_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "magic_link_url": {"dataType":"string","required":true},
            "expires_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LinkTokenInput": {
        "dataType": "refObject",
        "properties": {
            "end_user_origin_id": {"dataType":"string","required":true},
            "end_user_organization_name": {"dataType":"string","required":true},
            "end_user_email_address": {"dataType":"string"},
            "integration": {"dataType":"string"},
            "link_expiry_mins": {"dataType":"double"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "FieldMappingView": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "model": {"dataType":"string","required":true},
            "target_field_name": {"dataType":"string","required":true},
            "remote_field_path": {"dataType":"string","required":true},
            "created_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "FieldMappingInput": {
        "dataType": "refObject",
        "properties": {
            "model": {"dataType":"string","required":true},
            "target_field_name": {"dataType":"string","required":true},
            "remote_field_path": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RemoteDataView": {
        "dataType": "refObject",
        "properties": {
            "path": {"dataType":"string","required":true},
            "data": {"dataType":"any","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "EventView": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "remote_id": {"dataType":"string","required":true},
            "created_at": {"dataType":"string","required":true},
            "modified_at": {"dataType":"string","required":true},
            "name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_created_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "start_time": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "end_time": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_was_deleted": {"dataType":"boolean","required":true},
            "emails": {"dataType":"union","subSchemas":[{"dataType":"array","array":{"dataType":"string"}},{"dataType":"enum","enums":[null]}],"required":true},
            "messages": {"dataType":"union","subSchemas":[{"dataType":"array","array":{"dataType":"string"}},{"dataType":"enum","enums":[null]}],"required":true},
            "field_mappings": {"dataType":"union","subSchemas":[{"ref":"Record_string.unknown_"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_data": {"dataType":"union","subSchemas":[{"dataType":"array","array":{"dataType":"refObject","ref":"RemoteDataView"}},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Paginated_EventView_": {
        "dataType": "refObject",
        "properties": {
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"EventView"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ContactView": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "remote_id": {"dataType":"string","required":true},
            "created_at": {"dataType":"string","required":true},
            "modified_at": {"dataType":"string","required":true},
            "first_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "last_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "email": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "phone": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "state": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "country": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "postal_code": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_created_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_updated_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_was_deleted": {"dataType":"boolean","required":true},
            "field_mappings": {"dataType":"union","subSchemas":[{"ref":"Record_string.unknown_"},{"dataType":"enum","enums":[null]}],"required":true},
            "remote_data": {"dataType":"union","subSchemas":[{"dataType":"array","array":{"dataType":"refObject","ref":"RemoteDataView"}},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Paginated_ContactView_": {
        "dataType": "refObject",
        "properties": {
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"ContactView"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AccountTokenExchange": {
        "dataType": "refObject",
        "properties": {
            "account_token": {"dataType":"string","required":true},
            "id": {"dataType":"string","required":true},
            "integration": {"dataType":"nestedObjectLiteral","nestedProperties":{"slug":{"ref":"Platform","required":true},"name":{"dataType":"string","required":true}},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
};
const templateService = new ExpressTemplateService(models, {"noImplicitAdditionalProperties":"throw-on-extras","bodyCoercion":true});

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa




export function RegisterRoutes(app: Router) {

    // ###########################################################################################################
    //  NOTE: If you do not see routes for all of your controllers in this file, then you might not have informed tsoa of where to look
    //      Please look into the "controllerPathGlobs" config option described in the readme: https://github.com/lukeautry/tsoa
    // ###########################################################################################################


    
        const argsSyncStatusController_listSyncStatus: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                _accountToken: {"in":"header","name":"X-Account-Token","dataType":"string"},
                _linkedAccountId: {"in":"query","name":"linked_account_id","dataType":"string"},
        };
        app.get('/api/mktg/v1/sync-status',
            authenticateMiddleware([{"session":["view_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SyncStatusController)),
            ...(fetchMiddlewares<RequestHandler>(SyncStatusController.prototype.listSyncStatus)),

            async function SyncStatusController_listSyncStatus(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSyncStatusController_listSyncStatus, request, response });

                const controller = new SyncStatusController();

              await templateService.apiHandler({
                methodName: 'listSyncStatus',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSyncStatusController_resync: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                _accountToken: {"in":"header","name":"X-Account-Token","dataType":"string"},
                _linkedAccountId: {"in":"query","name":"linked_account_id","dataType":"string"},
        };
        app.post('/api/mktg/v1/sync-status/resync',
            authenticateMiddleware([{"session":["force_resync"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SyncStatusController)),
            ...(fetchMiddlewares<RequestHandler>(SyncStatusController.prototype.resync)),

            async function SyncStatusController_resync(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSyncStatusController_resync, request, response });

                const controller = new SyncStatusController();

              await templateService.apiHandler({
                methodName: 'resync',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSyncStatusController_disableModel: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                model_id: {"in":"path","name":"model_id","required":true,"dataType":"string"},
                _accountToken: {"in":"header","name":"X-Account-Token","dataType":"string"},
                _linkedAccountId: {"in":"query","name":"linked_account_id","dataType":"string"},
        };
        app.post('/api/mktg/v1/sync-status/:model_id/disable',
            authenticateMiddleware([{"session":["manage_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SyncStatusController)),
            ...(fetchMiddlewares<RequestHandler>(SyncStatusController.prototype.disableModel)),

            async function SyncStatusController_disableModel(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSyncStatusController_disableModel, request, response });

                const controller = new SyncStatusController();

              await templateService.apiHandler({
                methodName: 'disableModel',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSyncStatusController_enableModel: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                model_id: {"in":"path","name":"model_id","required":true,"dataType":"string"},
                _accountToken: {"in":"header","name":"X-Account-Token","dataType":"string"},
                _linkedAccountId: {"in":"query","name":"linked_account_id","dataType":"string"},
        };
        app.post('/api/mktg/v1/sync-status/:model_id/enable',
            authenticateMiddleware([{"session":["manage_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SyncStatusController)),
            ...(fetchMiddlewares<RequestHandler>(SyncStatusController.prototype.enableModel)),

            async function SyncStatusController_enableModel(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSyncStatusController_enableModel, request, response });

                const controller = new SyncStatusController();

              await templateService.apiHandler({
                methodName: 'enableModel',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsLinkedAccountsController_createLinkedAccount: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"LinkedAccountInput"},
        };
        app.post('/api/mktg/v1/linked-accounts',
            authenticateMiddleware([{"session":["manage_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController)),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController.prototype.createLinkedAccount)),

            async function LinkedAccountsController_createLinkedAccount(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsLinkedAccountsController_createLinkedAccount, request, response });

                const controller = new LinkedAccountsController();

              await templateService.apiHandler({
                methodName: 'createLinkedAccount',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsLinkedAccountsController_listLinkedAccounts: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                cursor: {"in":"query","name":"cursor","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
                include_sync_summary: {"in":"query","name":"include_sync_summary","dataType":"string"},
                status: {"in":"query","name":"status","dataType":"string"},
                platform: {"in":"query","name":"platform","dataType":"string"},
                search: {"in":"query","name":"search","dataType":"string"},
                order: {"in":"query","name":"order","dataType":"string"},
        };
        app.get('/api/mktg/v1/linked-accounts',
            authenticateMiddleware([{"session":["view_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController)),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController.prototype.listLinkedAccounts)),

            async function LinkedAccountsController_listLinkedAccounts(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsLinkedAccountsController_listLinkedAccounts, request, response });

                const controller = new LinkedAccountsController();

              await templateService.apiHandler({
                methodName: 'listLinkedAccounts',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsLinkedAccountsController_getLinkedAccount: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                include_sync_summary: {"in":"query","name":"include_sync_summary","dataType":"string"},
        };
        app.get('/api/mktg/v1/linked-accounts/:id',
            authenticateMiddleware([{"session":["view_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController)),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController.prototype.getLinkedAccount)),

            async function LinkedAccountsController_getLinkedAccount(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsLinkedAccountsController_getLinkedAccount, request, response });

                const controller = new LinkedAccountsController();

              await templateService.apiHandler({
                methodName: 'getLinkedAccount',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsLinkedAccountsController_listSyncRuns: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                cursor: {"in":"query","name":"cursor","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
        };
        app.get('/api/mktg/v1/linked-accounts/:id/sync-runs',
            authenticateMiddleware([{"session":["view_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController)),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController.prototype.listSyncRuns)),

            async function LinkedAccountsController_listSyncRuns(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsLinkedAccountsController_listSyncRuns, request, response });

                const controller = new LinkedAccountsController();

              await templateService.apiHandler({
                methodName: 'listSyncRuns',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsLinkedAccountsController_deleteLinkedAccount: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.delete('/api/mktg/v1/linked-accounts/:id',
            authenticateMiddleware([{"session":["manage_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController)),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController.prototype.deleteLinkedAccount)),

            async function LinkedAccountsController_deleteLinkedAccount(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsLinkedAccountsController_deleteLinkedAccount, request, response });

                const controller = new LinkedAccountsController();

              await templateService.apiHandler({
                methodName: 'deleteLinkedAccount',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsLinkedAccountsController_regenerateLinkedAccountToken: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.post('/api/mktg/v1/linked-accounts/:id/regenerate-account-token',
            authenticateMiddleware([{"session":["manage_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController)),
            ...(fetchMiddlewares<RequestHandler>(LinkedAccountsController.prototype.regenerateLinkedAccountToken)),

            async function LinkedAccountsController_regenerateLinkedAccountToken(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsLinkedAccountsController_regenerateLinkedAccountToken, request, response });

                const controller = new LinkedAccountsController();

              await templateService.apiHandler({
                methodName: 'regenerateLinkedAccountToken',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsLinkTokenController_createLinkToken: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"LinkTokenInput"},
        };
        app.post('/api/mktg/v1/link-token',
            authenticateMiddleware([{"session":["manage_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(LinkTokenController)),
            ...(fetchMiddlewares<RequestHandler>(LinkTokenController.prototype.createLinkToken)),

            async function LinkTokenController_createLinkToken(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsLinkTokenController_createLinkToken, request, response });

                const controller = new LinkTokenController();

              await templateService.apiHandler({
                methodName: 'createLinkToken',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsFieldMappingsController_listFieldMappings: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                _accountToken: {"in":"header","name":"X-Account-Token","dataType":"string"},
                _linkedAccountId: {"in":"query","name":"linked_account_id","dataType":"string"},
        };
        app.get('/api/mktg/v1/field-mappings',
            authenticateMiddleware([{"session":["view_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(FieldMappingsController)),
            ...(fetchMiddlewares<RequestHandler>(FieldMappingsController.prototype.listFieldMappings)),

            async function FieldMappingsController_listFieldMappings(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsFieldMappingsController_listFieldMappings, request, response });

                const controller = new FieldMappingsController();

              await templateService.apiHandler({
                methodName: 'listFieldMappings',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsFieldMappingsController_createFieldMapping: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"FieldMappingInput"},
                _accountToken: {"in":"header","name":"X-Account-Token","dataType":"string"},
                _linkedAccountId: {"in":"query","name":"linked_account_id","dataType":"string"},
        };
        app.post('/api/mktg/v1/field-mappings',
            authenticateMiddleware([{"session":["manage_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(FieldMappingsController)),
            ...(fetchMiddlewares<RequestHandler>(FieldMappingsController.prototype.createFieldMapping)),

            async function FieldMappingsController_createFieldMapping(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsFieldMappingsController_createFieldMapping, request, response });

                const controller = new FieldMappingsController();

              await templateService.apiHandler({
                methodName: 'createFieldMapping',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsFieldMappingsController_deleteFieldMapping: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                _accountToken: {"in":"header","name":"X-Account-Token","dataType":"string"},
                _linkedAccountId: {"in":"query","name":"linked_account_id","dataType":"string"},
        };
        app.delete('/api/mktg/v1/field-mappings/:id',
            authenticateMiddleware([{"session":["manage_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(FieldMappingsController)),
            ...(fetchMiddlewares<RequestHandler>(FieldMappingsController.prototype.deleteFieldMapping)),

            async function FieldMappingsController_deleteFieldMapping(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsFieldMappingsController_deleteFieldMapping, request, response });

                const controller = new FieldMappingsController();

              await templateService.apiHandler({
                methodName: 'deleteFieldMapping',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsEventsController_listEvents: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                _accountToken: {"in":"header","name":"X-Account-Token","dataType":"string"},
                _linkedAccountId: {"in":"query","name":"linked_account_id","dataType":"string"},
                created_after: {"in":"query","name":"created_after","dataType":"string"},
                created_before: {"in":"query","name":"created_before","dataType":"string"},
                modified_after: {"in":"query","name":"modified_after","dataType":"string"},
                modified_before: {"in":"query","name":"modified_before","dataType":"string"},
                remote_id: {"in":"query","name":"remote_id","dataType":"string"},
                include_deleted_data: {"in":"query","name":"include_deleted_data","dataType":"string"},
                include_remote_data: {"in":"query","name":"include_remote_data","dataType":"string"},
                include_shell_data: {"in":"query","name":"include_shell_data","dataType":"string"},
                cursor: {"in":"query","name":"cursor","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
        };
        app.get('/api/mktg/v1/events',
            authenticateMiddleware([{"session":["view_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(EventsController)),
            ...(fetchMiddlewares<RequestHandler>(EventsController.prototype.listEvents)),

            async function EventsController_listEvents(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsEventsController_listEvents, request, response });

                const controller = new EventsController();

              await templateService.apiHandler({
                methodName: 'listEvents',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsEventsController_getEvent: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                _accountToken: {"in":"header","name":"X-Account-Token","dataType":"string"},
                _linkedAccountId: {"in":"query","name":"linked_account_id","dataType":"string"},
                include_remote_data: {"in":"query","name":"include_remote_data","dataType":"string"},
                include_shell_data: {"in":"query","name":"include_shell_data","dataType":"string"},
        };
        app.get('/api/mktg/v1/events/:id',
            authenticateMiddleware([{"session":["view_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(EventsController)),
            ...(fetchMiddlewares<RequestHandler>(EventsController.prototype.getEvent)),

            async function EventsController_getEvent(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsEventsController_getEvent, request, response });

                const controller = new EventsController();

              await templateService.apiHandler({
                methodName: 'getEvent',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsEventsController_listEventContacts: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                parent_id: {"in":"path","name":"parent_id","required":true,"dataType":"string"},
                _accountToken: {"in":"header","name":"X-Account-Token","dataType":"string"},
                _linkedAccountId: {"in":"query","name":"linked_account_id","dataType":"string"},
                include_deleted_data: {"in":"query","name":"include_deleted_data","dataType":"string"},
                include_remote_data: {"in":"query","name":"include_remote_data","dataType":"string"},
                include_shell_data: {"in":"query","name":"include_shell_data","dataType":"string"},
                cursor: {"in":"query","name":"cursor","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
        };
        app.get('/api/mktg/v1/events/:parent_id/contacts',
            authenticateMiddleware([{"session":["view_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(EventsController)),
            ...(fetchMiddlewares<RequestHandler>(EventsController.prototype.listEventContacts)),

            async function EventsController_listEventContacts(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsEventsController_listEventContacts, request, response });

                const controller = new EventsController();

              await templateService.apiHandler({
                methodName: 'listEventContacts',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAccountTokenController_regenerateAccountToken: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
        };
        app.post('/api/mktg/v1/account-token/regenerate',
            authenticateMiddleware([{"session":["manage_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AccountTokenController)),
            ...(fetchMiddlewares<RequestHandler>(AccountTokenController.prototype.regenerateAccountToken)),

            async function AccountTokenController_regenerateAccountToken(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAccountTokenController_regenerateAccountToken, request, response });

                const controller = new AccountTokenController();

              await templateService.apiHandler({
                methodName: 'regenerateAccountToken',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAccountTokenController_exchangePublicToken: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                public_token: {"in":"path","name":"public_token","required":true,"dataType":"string"},
        };
        app.get('/api/mktg/v1/account-token/:public_token',
            authenticateMiddleware([{"session":["manage_linked_accounts"]},{"access_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AccountTokenController)),
            ...(fetchMiddlewares<RequestHandler>(AccountTokenController.prototype.exchangePublicToken)),

            async function AccountTokenController_exchangePublicToken(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAccountTokenController_exchangePublicToken, request, response });

                const controller = new AccountTokenController();

              await templateService.apiHandler({
                methodName: 'exchangePublicToken',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa


    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    function authenticateMiddleware(security: TsoaRoute.Security[] = []) {
        return async function runAuthenticationMiddleware(request: any, response: any, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            // keep track of failed auth attempts so we can hand back the most
            // recent one.  This behavior was previously existing so preserving it
            // here
            const failedAttempts: any[] = [];
            const pushAndRethrow = (error: any) => {
                failedAttempts.push(error);
                throw error;
            };

            const secMethodOrPromises: Promise<any>[] = [];
            for (const secMethod of security) {
                if (Object.keys(secMethod).length > 1) {
                    const secMethodAndPromises: Promise<any>[] = [];

                    for (const name in secMethod) {
                        secMethodAndPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }

                    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

                    secMethodOrPromises.push(Promise.all(secMethodAndPromises)
                        .then(users => { return users[0]; }));
                } else {
                    for (const name in secMethod) {
                        secMethodOrPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }
                }
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            try {
                request['user'] = await Promise.any(secMethodOrPromises);

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }

                next();
            }
            catch(err) {
                // Show most recent error as response
                const error = failedAttempts.pop();
                error.status = error.status || 401;

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }
                next(error);
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        }
    }

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
}

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
